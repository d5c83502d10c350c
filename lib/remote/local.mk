# lib/remote/: the remote cache tier's trust -- Ed25519 keys and the signed
# manifest (lib/remote/cache-remote.h).  In the base library: it needs only
# nettle, a dependency already.
lib_libhanzo_rocm_internal_la_SOURCES += \
	lib/remote/cache-remote.h lib/remote/remote-internal.h \
	lib/remote/cache-remote-key.c lib/remote/cache-remote-manifest.c
