#!/bin/bash
# kreg config check / show: OK on the example, one FILE:LINE:COL: line per
# problem on stderr and exit 1 otherwise.
. "$KREG_SRC/tests/lib.sh"
plan 37

example="$KREG_SRC/config/kreg.example.yaml"
run_kreg config check "$example"
is "$RC" 0 "the example passes the check"
is "$OUT" "configuration OK" "and says configuration OK"
no_sanitizer_report "no sanitizer report on the example"
run_kreg config show "$example"
printf '%s\n' "$OUT" > example-shown.yaml
like "$OUT" "^ +fragments: \[$KREG_SRC/config/kernel/qemu-guest.config, " \
	"show resolves the example's fragments next to it"
run_kreg config check example-shown.yaml
is "$OUT" "configuration OK" "and what it prints of the example checks clean"

# A file with a typo'd key, a string where a number belongs, a bad size.
cat > typo.yaml <<'YAML'
data_dir: data
hosts:
  - name: vm
    backend: qemu
    memroy: 1G
    cpus: two
detect:
  min_runs: abc
YAML
run_kreg config check typo.yaml
is "$RC" 1 "problems: exit 1"
is "$OUT" "" "nothing on stdout"
is "$(printf '%s\n' "$ERR" | wc -l)" 3 "one line per problem"
like "$ERR" "^typo.yaml:5:5: hosts\[0\]: unknown key 'memroy', did you mean 'memory'\?$" \
	"the typo, with its position and the nearest key"
like "$ERR" "^typo.yaml:6:11: hosts\[0\].cpus: expected a number, got 'two'$" \
	"a string where a number belongs"
like "$ERR" "^typo.yaml:8:13: detect.min_runs: expected a number, got 'abc'$" \
	"every problem is reported, not only the first"
no_sanitizer_report "no sanitizer report on problems"

# Broken YAML: libyaml's position.
printf 'data_dir: data\nhosts: [a, b\njobs: []\n' > broken.yaml
run_kreg config check broken.yaml
is "$RC" 1 "broken YAML: exit 1"
like "$ERR" "^broken.yaml:3:5: YAML syntax error: " "the syntax error with its position"
is "$(printf '%s\n' "$ERR" | wc -l)" 1 "one line"

# References and duplicates.
cat > refs.yaml <<'YAML'
data_dir: data
hosts:
  - { name: vm, backend: sim }
  - { name: vm, backend: local }
jobs:
  - { file: job.yaml, hosts: [vn] }
YAML
echo 'fio:' > job.yaml
run_kreg config check refs.yaml
is "$RC" 1 "duplicate names and bad references: exit 1"
like "$ERR" "^refs.yaml:4:13: hosts\[1\].name: duplicate host name 'vm' \(first at line 3\)$" \
	"the duplicate host"
like "$ERR" "^refs.yaml:6:31: jobs\[0\].hosts\[0\]: no host named 'vn', did you mean 'vm'\?$" \
	"the job naming a host that does not exist"

# A file that cannot be read: a directory (fails for root too), a missing one.
mkdir adir
run_kreg config check adir
is "$RC" 1 "a directory: exit 1"
like "$ERR" "^adir: cannot read the configuration: it is a directory$" "says why"
run_kreg config check missing.yaml
is "$RC" 1 "a missing file: exit 1"
like "$ERR" "^missing.yaml: cannot read the configuration: No such file or directory$" "says why"
if [ "$(id -u)" != 0 ]; then
	cp typo.yaml noperm.yaml && chmod 000 noperm.yaml
	run_kreg config check noperm.yaml
	like "$ERR" "^noperm.yaml: cannot read the configuration: Permission denied$" \
		"an unreadable file"
else
	_report 0 "an unreadable file # SKIP root reads any file"
fi

# The file kreg would use: -c, $KREG_CONFIG, ./kreg.yaml.
printf 'data_dir: data\n' > kreg.yaml
run_kreg config check
is "$RC" 0 "./kreg.yaml is the default file"
KREG_CONFIG=typo.yaml run_kreg config check
is "$RC" 1 "KREG_CONFIG names another"
run_kreg -c broken.yaml config check
is "$RC" 1 "and -c another"

# show: every default filled in, paths resolved, and it checks clean.
run_kreg config show kreg.yaml
is "$RC" 0 "config show exits 0"
like "$OUT" "^database: $SCRATCH/data/kreg.db$" "database defaults under data_dir"
like "$OUT" "^  min_runs: 3$" "detect defaults are shown"
printf '%s\n' "$OUT" > shown.yaml
run_kreg config check shown.yaml
is "$OUT" "configuration OK" "what show prints is a valid configuration"

# A kernel per kind of host: show names the config each host boots and why.
cat > hosts.yaml <<'YAML'
data_dir: data
hosts:
  - { name: vm1, backend: qemu }
  - { name: lab1, backend: ssh, address: 127.0.0.1 }
  - { name: lab2, backend: ssh, address: 127.0.0.1, kernel_config: qemu }
  - { name: here, backend: local }
YAML
run_kreg config show hosts.yaml
like "$OUT" "^#   vm1 \(qemu\): qemu: the qemu backend's built-in: .*\(tinyconfig \+ qemu-guest.config \+ fio-dbench.config \+ ext4.config \+ f2fs.config \+ monitors.config \+ test-devices.config\)$" \
	"a qemu host boots the qemu guest's built-in config, without ssh-box.config"
like "$OUT" "^#   lab1 \(ssh\): ssh: the ssh backend's built-in: .*qemu-guest.config \+ ssh-box.config \+" \
	"an ssh host boots the ssh built-in one, with ssh-box.config"
like "$OUT" "^#   lab2 \(ssh\): qemu: the host's kernel_config " "a host's kernel_config wins"
like "$OUT" "^#   here \(local\): none: " "a local host boots none"
printf 'build:\n  configs:\n    - { name: mine, base: tinyconfig }\n' >> hosts.yaml
run_kreg config show hosts.yaml
like "$OUT" "^#   lab1 \(ssh\): mine: the first of build.configs " \
	"with build.configs, a host without kernel_config boots the first of them"
sed -i 's/kernel_config: qemu/kernel_config: mien/' hosts.yaml
run_kreg config check hosts.yaml
like "$ERR" "^hosts.yaml:5:.*hosts\[2\].kernel_config: no kernel config named 'mien', did you mean 'mine'\?$" \
	"a kernel_config that names no config is refused"

run_kreg config frobnicate
is "$RC" 2 "an unknown subcommand is a usage error"
done_testing
