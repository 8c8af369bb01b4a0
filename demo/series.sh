#!/bin/bash
# The demo's "upstream" series: 20 commits on top of Debian's linux-source
# 6.1, in files the demo's kernel config compiles (block layer, virtio
# block, ext4, mm). Commit 10 does not build (commit 11 fixes it); commit 14
# is the block-layer regression, in the spirit of cb2ac2912a "block: reduce
# kblockd_mod_delayed_work_on() CPU consumption": kblockd's delayed work
# waits at least one tick, so every delayed queue run of blk-mq costs a
# jiffy (read IOPS -96% on 4k O_DIRECT random reads under qemu). The rest
# are harmless: comments that a reviewer would ask for.
#
#   demo/series.sh REPO          commit the series on REPO's checked-out branch
#   demo/series.sh --list        the subjects, one per line
#
# REPO is a non-bare git repository whose checkout is the base (clean).
# Every edit is checked: a line that is not where it is expected stops the
# script with the file and the line it looked for. Authors and dates are
# fixed, so the same base always gives the same commits.
set -eu

DEMO_BROKEN=10		# the commit that does not build
DEMO_CULPRIT=14		# the regression

# n|author|email|subject
SERIES='1|Ada Lindqvist|ada@example.org|block: document when blk_queue_enter() may sleep
2|Ben Okafor|ben@example.org|virtio_blk: say where the major number comes from
3|Cai Moreau|cai@example.org|ext4: explain why freeze flushes the journal first
4|Dee Hartmann|dee@example.org|mm: page_alloc: describe the watermark boost
5|Eli Novak|eli@example.org|blk-mq: note the ordering rules of blk_mq_run_hw_queue()
6|Fay Brennan|fay@example.org|block: bio: document what bio_add_page() returns on a full bio
7|Gus Tanaka|gus@example.org|ext4: comment the writepages entry for delalloc
8|Hal Petrov|hal@example.org|mm: filemap: say when filemap_readahead() is called
9|Ivy Castillo|ivy@example.org|block: genhd: document disk_scan_partitions() callers
10|Jon Weber|jon@example.org|virtio_blk: read the request sector through a helper
11|Jon Weber|jon@example.org|virtio_blk: add the missing virtblk_req_sector()
12|Kim Sorensen|kim@example.org|block: document the units of blk_queue_io_opt()
13|Lou Fischer|lou@example.org|ext4: extents: note the locking of ext4_ext_map_blocks()
14|Bart Kowalski|bart@example.org|block: avoid a zero-delay kblockd_mod_delayed_work_on()
15|Max Duval|max@example.org|blk-mq: sched: explain the dispatch budget loop
16|Nia Laine|nia@example.org|mm: vmscan: comment the isolation in shrink_inactive_list()
17|Oz Rahman|oz@example.org|block: sysfs: list the values nomerges accepts
18|Pia Conti|pia@example.org|ext4: namei: note that ext4_add_entry() may split a block
19|Quin Adler|quin@example.org|virtio_blk: document the probe order
20|Ray Lindgren|ray@example.org|block: merge: describe what blk_attempt_req_merge() returns'

if [ "${1:-}" = --list ]; then
	printf '%s\n' "$SERIES" | cut -d'|' -f4
	exit 0
fi
[ $# = 1 ] || { echo "usage: $0 REPO | --list" >&2; exit 2; }
REPO=$1
[ -d "$REPO/.git" ] || { echo "$0: $REPO: not a git repository with a checkout" >&2; exit 1; }

die() { echo "$0: $*" >&2; exit 1; }

# before FILE ANCHOR TEXT: insert TEXT (may hold \n) before the one line
# matching the basic regex ANCHOR
before() {
	local f="$REPO/$1" n
	n=$(grep -c -- "$2" "$f") || true
	[ "$n" = 1 ] || die "$1: expected one line matching '$2', found ${n:-0}"
	sed -i "s|$2|$3\n&|" "$f"
}

# replace FILE FROM TO COUNT: replace FROM (basic regex) by TO on COUNT lines
replace() {
	local f="$REPO/$1" n
	n=$(grep -c -- "$2" "$f") || true
	[ "$n" = "$4" ] || die "$1: expected $4 line(s) matching '$2', found ${n:-0}"
	sed -i "s|$2|$3|" "$f"
}

edit() {
	case $1 in
	1) before block/blk-core.c '^int blk_queue_enter(struct request_queue \*q, blk_mq_req_flags_t flags)$' \
		'/*\n * blk_queue_enter() may sleep until the queue is unfrozen unless\n * BLK_MQ_REQ_NOWAIT is set; callers in atomic context must pass it.\n */' ;;
	2) before drivers/block/virtio_blk.c '^static int major;$' \
		'/* The block major, allocated dynamically by register_blkdev() at init. */' ;;
	3) before fs/ext4/super.c '^static int ext4_freeze(struct super_block \*sb)$' \
		'/*\n * Freezing flushes the journal first so that a snapshot of the frozen\n * device needs no journal replay.\n */' ;;
	4) before mm/page_alloc.c '^static inline bool boost_watermark(struct zone \*zone)$' \
		'/*\n * A watermark boost makes kswapd reclaim a little more after a\n * fragmentation event; it decays once kswapd has met the boosted mark.\n */' ;;
	5) before block/blk-mq.c '^void blk_mq_run_hw_queue(struct blk_mq_hw_ctx \*hctx, bool async)$' \
		'/*\n * Callers that queue a request and then run the queue need no barrier of\n * their own: blk_mq_hctx_has_pending() is checked under the RCU lock.\n */' ;;
	6) before block/bio.c '^int bio_add_page(struct bio \*bio, struct page \*page,$' \
		'/* A full bio makes bio_add_page() return 0: submit it and start another. */' ;;
	7) before fs/ext4/inode.c '^static int ext4_writepages(struct address_space \*mapping,$' \
		'/* Delayed allocation blocks are allocated here, at writeback time. */' ;;
	8) before mm/filemap.c '^static int filemap_readahead(struct kiocb \*iocb, struct file \*file,$' \
		'/* Called when a read hits a folio marked for asynchronous readahead. */' ;;
	9) before block/genhd.c '^int disk_scan_partitions(struct gendisk \*disk, fmode_t mode)$' \
		'/* Called at device_add_disk() time and on BLKRRPART. */' ;;
	10) replace drivers/block/virtio_blk.c '^\([[:space:]]*\)blk_rq_pos(req));$' '\1virtblk_req_sector(req));' 2 ;;
	11) before drivers/block/virtio_blk.c '^static blk_status_t virtblk_setup_cmd(struct virtio_device \*vdev,$' \
		'static inline sector_t virtblk_req_sector(struct request *req)\n{\n\treturn blk_rq_pos(req);\n}\n' ;;
	12) before block/blk-settings.c '^void blk_queue_io_opt(struct request_queue \*q, unsigned int opt)$' \
		'/* @opt is in bytes; 0 means the device states no optimal size. */' ;;
	13) before fs/ext4/extents.c '^int ext4_ext_map_blocks(handle_t \*handle, struct inode \*inode,$' \
		'/* Called with i_data_sem held, for reading or for writing. */' ;;
	14) replace block/blk-core.c 'return mod_delayed_work_on(cpu, kblockd_workqueue, dwork, delay);$' \
		'return mod_delayed_work_on(cpu, kblockd_workqueue, dwork, max(delay, 1UL));' 1 ;;
	15) before block/blk-mq-sched.c '^static int __blk_mq_sched_dispatch_requests(struct blk_mq_hw_ctx \*hctx)$' \
		'/*\n * Dispatch takes a budget per request so that a busy device is not sent\n * more than it can queue; what is left stays in the scheduler.\n */' ;;
	16) before mm/vmscan.c '^static unsigned long shrink_inactive_list(unsigned long nr_to_scan,$' \
		'/* Folios are isolated from the LRU under the lruvec lock, then reclaimed. */' ;;
	17) before block/blk-sysfs.c '^static ssize_t queue_nomerges_store(struct request_queue \*q, const char \*page,$' \
		'/* nomerges: 0 merges, 1 only simple one-hit merges, 2 no merges at all. */' ;;
	18) before fs/ext4/namei.c '^static int ext4_add_entry(handle_t \*handle, struct dentry \*dentry,$' \
		'/* Adding an entry to a full htree leaf splits the leaf block. */' ;;
	19) before drivers/block/virtio_blk.c '^static int virtblk_probe(struct virtio_device \*vdev)$' \
		'/* Probe reads the config space before the queues exist. */' ;;
	20) before block/blk-merge.c '^bool blk_attempt_req_merge(struct request_queue \*q, struct request \*rq,$' \
		'/* True when @next was merged into @rq and may be freed. */' ;;
	esac
}

body() {
	case $1 in
	$DEMO_BROKEN) echo "The next commit adds the helper." ;;
	$DEMO_CULPRIT) printf '%s\n' \
		"A zero delay makes mod_delayed_work_on() queue the work at once," \
		"which is what most callers want, but the timer setup costs CPU on" \
		"every call. Wait at least one tick instead." ;;
	*) echo "No functional change." ;;
	esac
}

i=0
while IFS='|' read -r n name email subject; do
	i=$((i + 1))
	edit "$n"
	date="2026-02-$(printf %02d "$n")T10:00:00Z"
	printf '%s\n\n%s\n\nSigned-off-by: %s <%s>\n' "$subject" "$(body "$n")" "$name" "$email" |
	GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email GIT_AUTHOR_DATE=$date \
	GIT_COMMITTER_NAME="Demo Maintainer" GIT_COMMITTER_EMAIL="maintainer@example.org" \
	GIT_COMMITTER_DATE=$date \
	git -C "$REPO" -c core.autocrlf=false -c gc.auto=0 commit -q -a -F - ||
		die "commit $n: git commit failed"
done <<EOF
$SERIES
EOF
[ "$i" = 20 ] || die "committed $i of 20"
