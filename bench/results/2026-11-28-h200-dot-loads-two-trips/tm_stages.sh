#!/bin/bash
# tmetal, with --num-stages $TM_STAGES added to `compile` (an A/B wrapper, not project code).
if [ "$1" = compile ]; then exec "${TM_REAL:?}" "$@" --num-stages "${TM_STAGES:-3}"; fi
exec "${TM_REAL:?}" "$@"
