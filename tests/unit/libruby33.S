/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stand-in for Debian 13's libruby-3.3 (x86_64), for rbframe_test: what
 * user/core/rbframe.c reads of it and nothing more.  ruby_version in its
 * data; ruby_current_ec a TLS variable the library's export list keeps
 * local, 16 bytes into its TLS block; rb_thread_current() reading it
 * with the general-dynamic sequence gcc emits there, then ec->thread_ptr
 * at EC_THREAD (48, or another to make the code unrecognised).
 */
#ifndef EC_THREAD
#define EC_THREAD	0x30
#endif

	.section .rodata
	.globl	ruby_version
	.type	ruby_version, @object
ruby_version:
	.asciz	"3.3.8"
	.size	ruby_version, 6

	.section .tbss, "awT", @nobits
	.align	8
ruby_native_thread:
	.zero	16
ruby_current_ec:
	.zero	8

	.text
	.globl	rb_thread_current
	.type	rb_thread_current, @function
rb_thread_current:
	endbr64
	subq	$8, %rsp
	.byte	0x66
	leaq	ruby_current_ec@tlsgd(%rip), %rdi
	.value	0x6666
	rex64
	call	__tls_get_addr@PLT
	movq	(%rax), %rax
	movq	EC_THREAD(%rax), %rax
	movq	0x10(%rax), %rax
	addq	$8, %rsp
	ret
	.size	rb_thread_current, . - rb_thread_current

	.section .note.GNU-stack, "", @progbits
