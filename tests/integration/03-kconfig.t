#!/bin/bash
# One owner per fact: whether a kconfig base is a make target or a file, and
# where kconfig files and shipped job files are found, are decided once
# (config/config.h, lib/shared.h) for `kreg config check` and the build alike.
. "$KREG_SRC/tests/lib.sh"
plan 18

conf() {
	cat > kreg.yaml <<YAML
data_dir: data
build:
  configs:
    - name: k
      base: $1
      fragments: [$2]
YAML
}

conf kvm_guest.config kernel/qemu-guest.config
run_kreg config check kreg.yaml
is "$RC" 0 "base: kvm_guest.config (a make target of the kernel tree) passes the check"
[ "$RC" = 0 ] || printf '# %s\n' "$ERR"
run_kreg config show kreg.yaml
like "$OUT" "^ +base: kvm_guest.config$" "and stays a target, not a path"
like "$OUT" "fragments: \[[^]]*/config/kernel/qemu-guest.config\]" \
	"fragments: [kernel/qemu-guest.config] is found among the shipped ones (the source tree's config/kernel/)"
ok "the file it names exists" test -r "$(printf '%s\n' "$OUT" | sed -n 's/^ *fragments: \[\(.*\)\]$/\1/p')"

conf x86_64_defconfig qemu-guest.config
run_kreg config check kreg.yaml
is "$RC" 0 "base: x86_64_defconfig passes, a fragment by its bare name too"

conf myconfig kernel/qemu-guest.config
run_kreg config check kreg.yaml
is "$RC" 1 "base: myconfig (no such file, not a make target) fails the check"
like "$ERR" "kreg.yaml:5:13: build.configs\[0\].base: cannot read 'myconfig': no such file" \
	"naming the file as missing, where it is written"

printf 'CONFIG_64BIT=y\n' > myconfig
run_kreg config check kreg.yaml
is "$RC" 0 "once the file is there, base: myconfig passes"
run_kreg config show kreg.yaml
like "$OUT" "^ +base: $SCRATCH/myconfig$" "as the file next to kreg.yaml"

mkdir -p sub && printf 'CONFIG_EXT4_FS=y\n' > sub/qemu-guest.config
conf tinyconfig sub/qemu-guest.config
run_kreg config show kreg.yaml
like "$OUT" "fragments: \[$SCRATCH/sub/qemu-guest.config\]" \
	"a file next to kreg.yaml wins over the shipped one of the same name"

conf tinyconfig kernel/nosuch.config
run_kreg config check kreg.yaml
is "$RC" 1 "a missing fragment fails the check"
like "$ERR" "fragments\[0\]: cannot read 'kernel/nosuch.config': no such file" "naming it"

conf ./kvm_guest.config kernel/qemu-guest.config
run_kreg config check kreg.yaml
is "$RC" 1 "base: ./kvm_guest.config is a file (a path), missing here"

# A shipped job file: installed, or jobs/ of the source tree kreg runs from,
# like the kconfig files above (it was the installed folder only).
cat > kreg.yaml <<'YAML'
data_dir: data
hosts:
  - { name: here, backend: local, target: /tmp }
jobs:
  - { file: fio-quick.yaml, hosts: [here] }
YAML
run_kreg config check kreg.yaml
is "$RC" 0 "jobs: file: fio-quick.yaml is found among the shipped jobs"
[ "$RC" = 0 ] || printf '# %s\n' "$ERR"
run_kreg config show kreg.yaml
file=$(printf '%s\n' "$OUT" | sed -n 's/^ *\(- \)\?file: //p')
like "$file" "/jobs/fio-quick\.yaml$" "the source tree's jobs/fio-quick.yaml"
ok "the file it names exists" test -r "$file"
sed -i 's/fio-quick.yaml/nosuch-job.yaml/' kreg.yaml
run_kreg config check kreg.yaml
like "$ERR" "jobs\[0\]\.file: cannot find 'nosuch-job\.yaml' \(looked in the config's directory and the shipped jobs" \
	"a job file that is nowhere is named, with where it was looked for"
no_sanitizer_report "without a sanitizer report"
done_testing
