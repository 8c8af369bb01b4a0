# Shared by the 6x-bisect tests: a 64-commit git repository with merges and
# a kreg.yaml with a sim host.
#
#   make_repo DIR CULPRIT_N [EXTRA_TRAILERS_FOR_N...]
#     commits 1..64 after a root tagged "good"; topic branches merged every
#     few commits; commit number CULPRIT_N carries "Sim-Effect: $METRIC -20%".
#     Sets: GOOD (root sha), BAD (tip sha), and SHA_<n> for every commit n.

METRIC=fio.read_iops

git_q() { git -C "$REPO_DIR" "$@" >/dev/null 2>&1; }

# trailers for commit n: from the TRAILERS_<n> variables
commit_n() {
	local n=$1 msg body
	eval "body=\${TRAILERS_$n:-}"
	msg="commit $n"
	[ -n "$body" ] && msg="$msg

$body"
	echo "$n" > "$REPO_DIR/file$n"
	git_q add "file$n"
	GIT_AUTHOR_DATE="@$((1700000000 + n)) +0000" GIT_COMMITTER_DATE="@$((1700000000 + n)) +0000" \
		git -C "$REPO_DIR" commit -q -m "$msg"
	eval "SHA_$n=\$(git -C \"\$REPO_DIR\" rev-parse HEAD)"
}

make_repo() {
	REPO_DIR=$1
	local n=0 topic=0
	mkdir -p "$REPO_DIR"
	git init -q -b main "$REPO_DIR"
	git -C "$REPO_DIR" config user.name "Test Author"
	git -C "$REPO_DIR" config user.email "test@example.org"
	echo root > "$REPO_DIR/root"
	git_q add root
	GIT_AUTHOR_DATE="@1700000000 +0000" GIT_COMMITTER_DATE="@1700000000 +0000" \
		git -C "$REPO_DIR" commit -q -m "${ROOT_SUBJECT:-root}"
	GOOD=$(git -C "$REPO_DIR" rev-parse HEAD)
	# 64 commits: runs of 3 on main, then a topic of 4 merged (the merge is
	# one of the 64), and so on.
	while [ $n -lt 64 ]; do
		for _ in 1 2 3; do
			[ $n -ge 64 ] && break
			n=$((n + 1)); commit_n $n
		done
		[ $n -ge 61 ] && continue
		topic=$((topic + 1))
		git_q checkout -b "topic$topic" HEAD~2
		for _ in 1 2 3; do
			n=$((n + 1)); commit_n $n
		done
		git_q checkout main
		n=$((n + 1))
		GIT_AUTHOR_DATE="@$((1700000000 + n)) +0000" GIT_COMMITTER_DATE="@$((1700000000 + n)) +0000" \
			git -C "$REPO_DIR" merge -q --no-ff -m "commit $n: Merge topic$topic" "topic$topic"
		eval "SHA_$n=\$(git -C \"\$REPO_DIR\" rev-parse HEAD)"
	done
	BAD=$(git -C "$REPO_DIR" rev-parse HEAD)
}

# write_config FILE SEED [extra YAML for the bisect section]
write_config() {
	cat > "$1" <<YAML
data_dir: ${DATA_DIR:-$SCRATCH/data}
repos:
  - name: src
    url: $REPO_DIR
hosts:
  - name: simhost
    backend: sim
    seed: $2
    metrics:
      - { metric: $METRIC, base: 10000, noise: 5%, outlier_rate: 1% }
      - { metric: fio.write_iops, base: 8000, noise: 3% }
bisect:
  runs_per_step: 3
  max_runs_per_step: 12
${3:-}
YAML
}

sql() { sqlite3 "${DATA_DIR:-$SCRATCH/data}/kreg.db" "$1"; }

