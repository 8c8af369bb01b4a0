# A lab machine for the ssh backend's tests (55-57), made of a qemu guest:
# kreg's guest image plus an ssh server (dropbear), kexec-tools, scp, and an
# /init that brings up the network and the ssh server instead of running a
# job. qemu uses user-mode networking, forwarding a port on 127.0.0.1 to the
# guest's port 22.
#
#   . "$KREG_SRC/tests/integration/lab-box.sh"
#   lab_tools || skip_all "..."
#   lab_keys DIR                      client key DIR/id, host keys DIR/host{1,2}
#   lab_image BASE OUT KEYDIR N       BASE + the ssh layer, host key N
#   lab_start NAME KERNEL IMAGE DISK PORT [APPEND]   boot it (background,
#                                     NAME.pid); APPEND kreg_lab.nofio: no fio;
#                                     DISK is /dev/vda (the target), NAME-sys.img
#                                     /dev/vdb (the box's own, /lib/modules)
#   lab_wait NAME SECONDS             until the console says it is ready
#   lab_stop NAME                     kill it (the trap calls lab_stop_all)
#   lab_power_cycle_script NAME       writes NAME-power-cycle: kill + boot again
#
# The box's initramfs packs itself again at boot (/boot/lab.cpio) so kexec
# can hand it to the next kernel (the host's `initrd` key).

LAB_BOXES=

lab_tools() {
	local t
	for t in dropbear dropbearkey kexec scp ssh ssh-keygen cpio qemu-system-x86_64; do
		command -v "$t" >/dev/null || { echo "# no $t"; return 1; }
	done
}

# lab_free_port: a TCP port on 127.0.0.1 nobody listens on now.
lab_free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

lab_keys() {
	mkdir -p "$1" &&
	ssh-keygen -q -t ed25519 -N '' -C kreg-test -f "$1/id" &&
	dropbearkey -t ed25519 -f "$1/host1" >/dev/null 2>&1 &&
	dropbearkey -t ed25519 -f "$1/host2" >/dev/null 2>&1
}

# _lab_copy ROOT PROGRAM GUEST-PATH: the program and its shared libraries.
_lab_copy() {
	local root=$1 prog=$2 dest=$3 lib
	install -D -m 0755 "$prog" "$root$dest" || return 1
	for lib in $(ldd "$prog" 2>/dev/null | awk '/=> \// { print $3 } /^[ \t]*\// { print $1 }'); do
		[ -e "$root$lib" ] || install -D -m 0755 "$(readlink -f "$lib")" "$root$lib" || return 1
	done
}

_lab_init() {
	cat <<'EOF'
#!/bin/sh
# The lab box's init (kreg's ssh tests): network, ssh server, then wait.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
/bin/busybox mkdir -p /proc /sys /dev /tmp /mnt /root /boot /run
/bin/busybox mount -t tmpfs tmpfs /boot
# This initramfs again, for kexec --initrd: packed before /dev is mounted
# over (its console node comes along), without /boot itself.
cd / && /bin/busybox find . -xdev | /bin/busybox cpio -o -H newc > /boot/lab.cpio 2>/dev/null
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s /bin
# a box without fio: kreg copies its own
case " $(cat /proc/cmdline) " in *" kreg_lab.nofio "*) rm -f /usr/bin/fio ;; esac
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm && mount -t devpts devpts /dev/pts && mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
# The box's own disk (/dev/vdb), as a lab machine's root disk: the modules
# kreg installs before a kexec must still be there after it.
mkdir -p /lib/modules
mount -t ext4 /dev/vdb /lib/modules 2>/dev/null ||
	{ /sbin/mke2fs -q -F -t ext4 /dev/vdb && mount -t ext4 /dev/vdb /lib/modules; }
/sbin/ldconfig
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
/usr/sbin/dropbear -r /etc/dropbear/host_key -p 22 -s -P /run/dropbear.pid -E 2>>/tmp/dropbear.log
echo "KREG-LAB: ready $(uname -r) $(cat /proc/sys/kernel/random/boot_id) $(cat /proc/cmdline)"
while :; do sleep 3600; done
EOF
}

# lab_image BASE OUT KEYDIR N
lab_image() {
	local base=$1 out=$2 keys=$3 n=$4 root
	root=$(mktemp -d "$SCRATCH/lab-root.XXXXXX") || return 1
	_lab_copy "$root" "$(command -v dropbear)" /usr/sbin/dropbear &&
	_lab_copy "$root" "$(command -v kexec)" /usr/sbin/kexec &&
	_lab_copy "$root" "$(command -v scp)" /usr/bin/scp &&
	install -D -m 0755 "$(command -v ldconfig || echo /sbin/ldconfig)" "$root/sbin/ldconfig" &&
	mkdir -p "$root/etc/dropbear" "$root/root/.ssh" &&
	install -m 0600 "$keys/host$n" "$root/etc/dropbear/host_key" &&
	install -m 0600 "$keys/id.pub" "$root/root/.ssh/authorized_keys" &&
	chmod 0700 "$root/root" "$root/root/.ssh" &&
	printf 'root:x:0:0:root:/root:/bin/sh\n' > "$root/etc/passwd" &&
	printf 'root:x:0:\n' > "$root/etc/group" &&
	printf '/bin/sh\n' > "$root/etc/shells" &&
	printf '/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu/ceph\n' \
		> "$root/etc/ld.so.conf" &&
	_lab_init > "$root/init" && chmod 0755 "$root/init" &&
	cp "$base" "$out.tmp" &&
	(cd "$root" && find . -mindepth 1 | cpio -o -H newc -R 0:0 --quiet >> "$out.tmp") &&
	mv "$out.tmp" "$out"
	local rc=$?
	rm -rf "$root"
	return $rc
}

# lab_start NAME KERNEL IMAGE DISK PORT [APPEND]: the command is kept in
# NAME-boot so the power cycle script boots the same way. kreg boots its
# kernels with kexec, never a reset: a reset powers the box off
# (-no-reboot), so a kernel booted with panic=N that panics is off until the
# power cycle rather than spinning a core in panic's loop.
lab_start() {
	local name=$1
	cat > "$SCRATCH/$name-boot" <<EOF
#!/bin/bash
# boot the lab box $name (qemu, TCG), in the background
cd "$SCRATCH" || exit 1
# the previous boot's console, kept
[ -s "$name.console" ] && cat "$name.console" >> "$name.console.old"
: > "$name.console"
setsid qemu-system-x86_64 -accel tcg -cpu max -m 1536M -smp 1 -machine pc \\
	-nodefaults -no-user-config -display none -no-reboot \\
	-kernel "$2" -initrd "$3" -append "console=ttyS0 rdinit=/init printk.time=1 random.trust_cpu=on${6:+ $6}" \\
	-serial "file:$SCRATCH/$name.console" \\
	-drive "file=$4,format=raw,if=virtio,cache=writeback" \\
	-drive "file=$SCRATCH/$name-sys.img,format=raw,if=virtio,cache=writeback" \\
	-netdev "user,id=n,hostfwd=tcp:127.0.0.1:$5-:22" -device virtio-net-pci,netdev=n \\
	</dev/null >"$SCRATCH/$name.qemu.log" 2>&1 &
echo \$! > "$SCRATCH/$name.pid"
EOF
	chmod +x "$SCRATCH/$name-boot"
	[ -e "$SCRATCH/$name-sys.img" ] || truncate -s 64M "$SCRATCH/$name-sys.img"
	cat > "$SCRATCH/$name-power-cycle" <<EOF
#!/bin/bash
# power cycle the lab box $name: kill its qemu, boot it again
p=\$(cat "$SCRATCH/$name.pid" 2>/dev/null)
if [ -n "\$p" ]; then
	kill -9 "\$p" 2>/dev/null
	for i in \$(seq 50); do kill -0 "\$p" 2>/dev/null || break; sleep 0.1; done
fi
echo "power cycle \$(date +%s)" >> "$SCRATCH/$name.cycles"
exec "$SCRATCH/$name-boot"
EOF
	chmod +x "$SCRATCH/$name-power-cycle"
	case " $LAB_BOXES " in *" $name "*) ;; *) LAB_BOXES="$LAB_BOXES $name" ;; esac
	"$SCRATCH/$name-boot"
}

# lab_wait NAME SECONDS: until the console shows the box ready (or qemu died).
lab_wait() {
	local i p
	for i in $(seq "$2"); do
		grep -q '^KREG-LAB: ready' "$SCRATCH/$1.console" 2>/dev/null && return 0
		p=$(cat "$SCRATCH/$1.pid" 2>/dev/null)
		[ -n "$p" ] && kill -0 "$p" 2>/dev/null || return 1
		sleep 1
	done
	return 1
}

lab_stop() {
	local p
	p=$(cat "$SCRATCH/$1.pid" 2>/dev/null)
	[ -n "$p" ] && kill -9 "$p" 2>/dev/null
	rm -f "$SCRATCH/$1.pid"
}

lab_stop_all() {
	local b
	for b in $LAB_BOXES; do lab_stop "$b"; done
}
