# lib/remote/: the remote cache tier's trust -- Ed25519 keys and the signed
# manifest (lib/remote/remote.h).  In the base library: it needs only
# nettle, a dependency already.
lib_libhanzo_rocm_internal_la_SOURCES += \
	lib/remote/remote.h lib/remote/remote-internal.h \
	lib/remote/key.c lib/remote/manifest.c \
	lib/remote/client.c lib/remote/remote.c

# remote.so: the HTTP(S) transport (libcurl), dlopen-ed by the library only
# when a remote tier is used (hr_remote_http_load), so the library links no
# network library.
if ENABLE_REMOTE
pkglib_LTLIBRARIES = lib/remote/remote.la
endif
lib_remote_remote_la_SOURCES = lib/remote/remote.h lib/remote/http.c
lib_remote_remote_la_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS)
lib_remote_remote_la_LIBADD = $(CURL_LIBS)
lib_remote_remote_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -no-undefined
