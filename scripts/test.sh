#!/usr/bin/env bash
# Runs the whole test suite: the README's test command, and what CI runs (.ci/run).
#
# Three processes, one after the other. The sync tests use the seed pages' models (`Item`, `Person`, `Dog`...), and
# the local-database tests have models of the same names; as in Realm, a process's default schema holds one class per
# name, so a default-schema Realm in one target could pick up the other target's class. Running the sync tests apart
# also halves how many tests share the machine at once (Swift Testing starts every test of a process together),
# which is what made waits in them time out on a busy machine.
#
# Arguments, if any, go to a single `swift test` (for example `scripts/test.sh --filter RebaseTests`).
set -u
cd "$(dirname "$0")/.."
swift build --build-tests || exit 1
if [ $# -gt 0 ]; then
    exec swift test --skip-build "$@"
fi
status=0
echo "== local database, server and core tests"
swift test --skip-build --skip OutpostSyncTests --skip OutpostSwift5Tests || status=1
echo "== sync client tests (against real servers)"
swift test --skip-build --filter OutpostSyncTests || status=1
# Its own process too: the seed samples' `Item` and `Person` share their names with both other test targets' models.
echo "== the seed samples in Swift 5 language mode"
swift test --skip-build --filter OutpostSwift5Tests || status=1
exit $status
