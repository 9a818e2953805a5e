#!/bin/sh
# Creates the namespace when it is missing and registers custom search attributes on a Temporal
# cluster: the compose stack's `search-attributes` job runs it in temporalio/admin-tools (busybox sh),
# with the list from packages/client/src/contract.ts (what `npm run cluster` does in src/cluster/cluster.ts).
#
#   TEMPORAL_ADDRESS    host:port of the frontend (required)
#   TEMPORAL_NAMESPACE  namespace (default: default)
#   SEARCH_ATTRIBUTES   space-separated Name=Type pairs, e.g. "PlatformStatus=Keyword PlatformCostEstimate=Int"
#   RETENTION           how long closed workflows are kept, for a namespace created here (default: 72h)
#   WAIT_SECONDS        how long to wait for the namespace to exist (default: 300)
#   RETRY_SECONDS       pause between checks (default: 2)
#   NEXUS_ENDPOINT      set: the Nexus endpoint of that name to the worker's namespace and task queue, and the
#                       namespace callers try it from, as src/nexus/setup.ts sets them up for `npm run cluster`
#   NEXUS_TASK_QUEUE    the worker's task queue (default: platform-ops)
#   CALLERS_NAMESPACE   (default: callers)
#
# Idempotent, so that `docker compose up` can run it on every start: an attribute that already exists
# with the same type is fine. One that exists with another type is an error, since workflows would
# then fail to upsert it. One attribute per call, so one existing attribute cannot hide the others.
set -eu

: "${TEMPORAL_ADDRESS:?TEMPORAL_ADDRESS must name the Temporal frontend, e.g. temporal:7233}"
: "${SEARCH_ATTRIBUTES:?SEARCH_ATTRIBUTES must list Name=Type pairs}"
namespace="${TEMPORAL_NAMESPACE:-default}"
wait_seconds="${WAIT_SECONDS:-300}"
retry_seconds="${RETRY_SECONDS:-2}"
retention="${RETENTION:-72h}"

log() { echo "register-search-attributes: $*"; }

# A new server has no namespace: create it (refused harmlessly when it exists, or while the server
# is still starting), then wait until it answers, which takes the server's namespace cache a moment.
waited=0
until temporal operator namespace describe --address "$TEMPORAL_ADDRESS" --namespace "$namespace" >/dev/null 2>&1; do
  if [ "$waited" -ge "$wait_seconds" ]; then
    log "namespace $namespace did not appear at $TEMPORAL_ADDRESS within ${wait_seconds}s" >&2
    exit 1
  fi
  temporal operator namespace create --address "$TEMPORAL_ADDRESS" --namespace "$namespace" \
    --retention "$retention" >/dev/null 2>&1 || true
  log "waiting for namespace $namespace at $TEMPORAL_ADDRESS"
  sleep "$retry_seconds"
  waited=$((waited + retry_seconds))
done

for pair in $SEARCH_ATTRIBUTES; do
  name="${pair%%=*}"
  type="${pair#*=}"
  if [ -z "$name" ] || [ "$name" = "$pair" ] || [ -z "$type" ]; then
    log "bad entry '$pair' in SEARCH_ATTRIBUTES: want Name=Type" >&2
    exit 1
  fi
  if out=$(temporal operator search-attribute create --address "$TEMPORAL_ADDRESS" --namespace "$namespace" \
    --name "$name" --type "$type" 2>&1); then
    log "created $name ($type)"
  elif printf '%s' "$out" | grep -qi 'different type'; then
    log "$name exists with another type than $type: $out" >&2
    exit 1
  elif printf '%s' "$out" | grep -qi 'already exist'; then
    log "$name ($type) already exists"
  else
    log "cannot create $name ($type): $out" >&2
    exit 1
  fi
done
log "done: $SEARCH_ATTRIBUTES"

if [ -n "${NEXUS_ENDPOINT:-}" ]; then
  callers="${CALLERS_NAMESPACE:-callers}"
  task_queue="${NEXUS_TASK_QUEUE:-platform-ops}"
  if ! temporal operator namespace describe --address "$TEMPORAL_ADDRESS" --namespace "$callers" >/dev/null 2>&1; then
    temporal operator namespace create --address "$TEMPORAL_ADDRESS" --namespace "$callers" --retention 24h
    log "created namespace $callers"
  fi
  # An endpoint that exists is left as it is: an operator may have pointed it elsewhere on purpose.
  if temporal operator nexus endpoint get --address "$TEMPORAL_ADDRESS" --name "$NEXUS_ENDPOINT" >/dev/null 2>&1; then
    log "Nexus endpoint $NEXUS_ENDPOINT exists"
  else
    temporal operator nexus endpoint create --address "$TEMPORAL_ADDRESS" --name "$NEXUS_ENDPOINT" \
      --target-namespace "$namespace" --target-task-queue "$task_queue"
    log "created Nexus endpoint $NEXUS_ENDPOINT (to $namespace/$task_queue)"
  fi
fi
