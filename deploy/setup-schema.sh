#!/bin/sh
# Creates the Temporal databases on PostgreSQL and brings their schemas to the SQL tool's version:
# the compose stack's `temporal-schema` job runs it in temporalio/admin-tools. The same steps as
# `npm run cluster` (src/cluster/postgres.ts), which test/deploy/compose.test.ts compares.
#
#   POSTGRES_SEEDS, DB_PORT, POSTGRES_USER, POSTGRES_PWD   where PostgreSQL is, and who connects
#   TEMPORAL_SCHEMAS   space-separated database=schema-name pairs (the schemas embedded in the tool)
#
# Idempotent, so it runs on every `docker compose up`: an existing database is kept, `setup-schema
# -v 0.0` skips a database already past 0.0, and update-schema applies only what is missing.
set -eu

: "${POSTGRES_SEEDS:?POSTGRES_SEEDS must name the PostgreSQL host}"
: "${POSTGRES_USER:?POSTGRES_USER must name the database user}"
: "${TEMPORAL_SCHEMAS:?TEMPORAL_SCHEMAS must list database=schema-name pairs}"
# The tool reads the password from SQL_PASSWORD: kept off its command line.
SQL_PASSWORD="${POSTGRES_PWD:-}"
export SQL_PASSWORD

sql_tool() {
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "${DB_PORT:-5432}" -u "$POSTGRES_USER" "$@"
}

for pair in $TEMPORAL_SCHEMAS; do
  db="${pair%%=*}"
  schema="${pair#*=}"
  if ! out=$(sql_tool --db "$db" create 2>&1); then
    if ! printf '%s' "$out" | grep -q 'already exists'; then
      echo "setup-schema: cannot create database $db: $out" >&2
      exit 1
    fi
  fi
  sql_tool --db "$db" setup-schema -v 0.0
  sql_tool --db "$db" update-schema --schema-name "$schema"
  echo "setup-schema: $db is on the newest $schema"
done
