#!/bin/sh
# The CLI's global options and exit codes (DESIGN §4).
. "$top_srcdir/t/tap.sh"

exit_is 0 "--help exits 0" "$HR_CLI" --help
grep_ok "--help lists the commands" "precompile" "$T/out"
exit_is 0 "--version exits 0" "$HR_CLI" --version
grep_ok "--version prints the version" "^hanzo-rocm [0-9]+\.[0-9]+" "$T/out"
exit_is 2 "no command is a usage error" "$HR_CLI"
exit_is 2 "an unknown command is a usage error" "$HR_CLI" frobnicate
grep_ok "the unknown command is named" "frobnicate" "$T/err"
exit_is 2 "an unknown option is a usage error" "$HR_CLI" --frobnicate info
done_testing
