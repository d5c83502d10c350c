# lib/remote/: the remote cache tier's trust -- Ed25519 keys and the signed
# manifest (lib/remote/remote.h).  In the base library: it needs only
# nettle, a dependency already.
lib_libhanzo_rocm_internal_la_SOURCES += \
	lib/remote/remote.h lib/remote/remote-internal.h \
	lib/remote/key.c lib/remote/manifest.c \
	lib/remote/client.c lib/remote/remote.c \
	lib/remote/stats.c

# remote.so: the HTTP(S) transport (libcurl), dlopen-ed by the library only
# when a remote tier is used (hr_remote_http_load), so the library links no
# network library.
if ENABLE_REMOTE
pkglib_LTLIBRARIES = lib/remote/remote.la
endif
# Its Redis leases (hiredis) when configure found hiredis.
lib_remote_remote_la_SOURCES = lib/remote/remote.h lib/remote/http.c \
	lib/remote/redis.h lib/remote/redis.c
lib_remote_remote_la_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(HIREDIS_CFLAGS)
lib_remote_remote_la_LIBADD = $(CURL_LIBS) $(HIREDIS_LIBS)
if HAVE_HIREDIS
lib_remote_remote_la_CFLAGS += -DHR_HAVE_HIREDIS
endif
lib_remote_remote_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -no-undefined
