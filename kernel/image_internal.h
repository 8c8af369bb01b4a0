/* Private to kernel/'s guest image (image.h), shared by its files:
 * image_cpio.c writes cpio newc archives, image_progs.c the programs' disk
 * the qemu hosts boot with the lean initramfs, image.c finds what goes in
 * and builds the images. */
#ifndef KREG_IMAGE_INTERNAL_H
#define KREG_IMAGE_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

/* A cpio newc archive being written. */
typedef struct {
	FILE *f;
	const char *path;
	unsigned ino;
	char **dirs;		/* directories written so far */
	size_t ndirs, adirs;
	unsigned long long bytes;
	int failed;		/* a write failed: the archive is not whole */
} kreg_cpio;

/* Padding to 4 bytes after n bytes. */
void kreg_image__cpio_pad(kreg_cpio *c, unsigned long long n);
/* One entry (name relative to /), as is: no parent directories. */
void kreg_image__cpio_entry(kreg_cpio *c, const char *name, unsigned mode, const void *data,
			    size_t len, unsigned rmaj, unsigned rmin);
/* A directory, a file, a symlink at an absolute guest path, each after
 * the parent directories not written yet. */
void kreg_image__cpio_dir(kreg_cpio *c, const char *guest_path);
void kreg_image__cpio_file(kreg_cpio *c, const char *guest_path, const void *data, size_t len,
			   unsigned mode);
void kreg_image__cpio_symlink(kreg_cpio *c, const char *guest_path, const char *target);
void kreg_image__cpio_trailer(kreg_cpio *c);
/* Frees what the writer keeps (not the FILE). */
void kreg_image__cpio_release(kreg_cpio *c);

/* The programs' disk being made: a directory tree the files are copied
 * into, made into an ext2 image by mke2fs -d (image_progs.c). */
typedef struct {
	char *dir;			/* the tree, removed by release */
	unsigned long long blocks;	/* 4 KiB blocks of the files and directories */
	size_t inodes;
	int failed;			/* an error is set */
} kreg_progs_tree;

int kreg_image__progs_begin(kreg_progs_tree *t, const char *disk_path);
/* A file (guest path, absolute) or a symlink into the tree. */
int kreg_image__progs_file(kreg_progs_tree *t, const char *guest_path, const void *data,
			   size_t len, unsigned mode);
int kreg_image__progs_symlink(kreg_progs_tree *t, const char *guest_path, const char *target);
/* mke2fs -d of the tree into tmp, sized to fit; *bytes: its size. */
int kreg_image__progs_make(kreg_progs_tree *t, const char *tmp, unsigned long long *bytes);
void kreg_image__progs_release(kreg_progs_tree *t);

#endif
