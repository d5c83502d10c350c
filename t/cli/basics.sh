#!/bin/sh
# The CLI's global options and exit codes (doc/DESIGN.md §4).
. "$top_srcdir/t/tap.sh"

exit_is 0 "--help exits 0" "$HR_CLI" --help
grep_ok "--help lists the commands" "precompile" "$T/out"
exit_is 0 "--version exits 0" "$HR_CLI" --version
grep_ok "--version prints the version" "^hanzo-rocm [0-9]+\.[0-9]+" "$T/out"
exit_is 2 "no command is a usage error" "$HR_CLI"
exit_is 2 "an unknown command is a usage error" "$HR_CLI" frobnicate
grep_ok "the unknown command is named" "frobnicate" "$T/err"
exit_is 2 "an unknown option is a usage error" "$HR_CLI" --frobnicate info
# User input echoed in a message never reaches the terminal raw (doc/DESIGN.md §4):
# an escape sequence and invalid UTF-8 come out as \xNN, valid UTF-8 as is.
exit_is 2 "an unknown command with escapes is a usage error" \
	"$HR_CLI" "$(printf 'x\033[31my\377z\303\251')"
grep_ok "ESC and an invalid byte are escaped, UTF-8 kept" "unknown command 'x\\\\x1b\\[31my\\\\xffz$(printf '\303\251')'" "$T/err"
LC_ALL=C grep -q "$(printf '\033')" "$T/err"; [ $? -eq 1 ]; ok $? "no raw ESC byte on stderr"
printf '[cache]\nmax_size = \033]0;owned\007\n' > "$T/esc.conf"
exit_is 2 "a config value with escapes is an error" "$HR_CLI" config check "$T/esc.conf"
LC_ALL=C grep -q "$(printf '\033')" "$T/err"; [ $? -eq 1 ]; ok $? "and the library's message has no raw ESC either"
grep_ok "it shows them escaped" "x1b\\]0;owned" "$T/err"
done_testing
