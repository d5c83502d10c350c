# etc: the shipped configuration, every key commented out (hanzo-rocm.conf(5)).
# It must pass `hanzo-rocm config check` (t/config/cli.sh checks it).
dist_sysconf_DATA += etc/hanzo-rocm.conf
