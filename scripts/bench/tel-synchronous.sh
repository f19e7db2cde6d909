#!/bin/sh
# `tel` with storage.synchronous set on the database before `tel serve` starts on it, so that the
# shared benchmarks (which start tel only through $TEL_CMD) measure either setting:
#   TEL_CMD="sh $PWD/scripts/bench/tel-synchronous.sh full" node_modules/.bin/node ../shared/bench/webhooks.mjs
#   TEL_CMD="sh $PWD/scripts/bench/tel-synchronous.sh normal" node_modules/.bin/node ../shared/bench/webhooks.mjs
level=$1
shift
root=$(CDPATH='' cd -- "$(dirname -- "$0")/../.." && pwd)
# bin/tel.js runs on the project's Node, with the flags of its first line (as `npx tel` does)
PATH="$root/node_modules/.bin:$PATH"
export PATH
case " $* " in
*" serve "*)
  db=
  prev=
  for arg in "$@"; do
    [ "$prev" = --db ] && db=$arg
    prev=$arg
  done
  "$root/bin/tel.js" --db "${db:-./tel.db}" config set storage synchronous "$level" >/dev/null || exit 1
  ;;
esac
exec "$root/bin/tel.js" "$@"
