# etc/system.mk: systemd unit, udev rule and tmpfiles.d entry, installed into
# the directories configure was given (--with-systemdsystemunitdir,
# --with-udevrulesdir, --with-tmpfilesdir).  The unit and the tmpfiles entry
# name bindir and cachedir, so they are generated here (not by configure: the
# values must be fully expanded, e.g. ${prefix} resolved).
hr_edit = $(SED) \
	-e 's|@bindir[@]|$(bindir)|g' \
	-e 's|@cachedir[@]|$(cachedir)|g'

etc/hanzo-rocm-precompile.service: $(top_srcdir)/etc/hanzo-rocm-precompile.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) etc && rm -f $@ $@.tmp && \
		$(hr_edit) $(top_srcdir)/etc/hanzo-rocm-precompile.service.in > $@.tmp && mv $@.tmp $@
etc/hanzo-rocm.tmpfiles: $(top_srcdir)/etc/hanzo-rocm.tmpfiles.in Makefile
	$(AM_V_GEN)$(MKDIR_P) etc && rm -f $@ $@.tmp && \
		$(hr_edit) $(top_srcdir)/etc/hanzo-rocm.tmpfiles.in > $@.tmp && mv $@.tmp $@

systemdsystemunit_DATA = etc/hanzo-rocm-precompile.service
udevrules_DATA = etc/60-hanzo-rocm.rules
# Built with everything (the tests read it), installed by the rule below.
noinst_DATA = etc/hanzo-rocm.tmpfiles
# tmpfiles.d wants <package>.conf; install under that name.
install-data-local: install-data-local-tmpfiles
install-data-local-tmpfiles: etc/hanzo-rocm.tmpfiles
	$(MKDIR_P) '$(DESTDIR)$(tmpfilesdir)'
	$(INSTALL_DATA) etc/hanzo-rocm.tmpfiles '$(DESTDIR)$(tmpfilesdir)/hanzo-rocm.conf'
uninstall-local: uninstall-local-tmpfiles
uninstall-local-tmpfiles:
	rm -f '$(DESTDIR)$(tmpfilesdir)/hanzo-rocm.conf'
.PHONY: install-data-local-tmpfiles uninstall-local-tmpfiles

CLEANFILES += etc/hanzo-rocm-precompile.service etc/hanzo-rocm.tmpfiles
EXTRA_DIST += etc/hanzo-rocm-precompile.service.in etc/hanzo-rocm.tmpfiles.in \
	etc/60-hanzo-rocm.rules
