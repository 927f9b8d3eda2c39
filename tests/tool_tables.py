"""The command lines of the tools run.sh runs, as the tools themselves read them: the full
option tables (not only what run.sh allows) and each tool's own rule for a word that is an
abbreviation, written from the tools' source, independently of analyze/sim/allowed.py.

tests/test_run_sh_allowed.py asks of every command run.sh would run: what does the tool
make of each of its words? Whatever the answer, it must be no option that runs a program,
reads commands from a file or writes a file.

Sources: iproute2 ip/ip.c, ip/ipnetns.c, ip/ipvrf.c, ip/iplink.c, tc/tc.c, lib/utils.c
(`matches`); glibc posix/getopt.c (`process_long_option`); fio init.c and options.c; iperf3
src/iperf_api.c; procps sysctl.c.
"""

from __future__ import annotations

from collections.abc import Sequence

# --- iproute2: the first keyword in source order that the word begins ---------------------

IP_OPTIONS = ("-loops", "-family", "-4", "-6", "-0", "-M", "-B", "-human", "-human-readable",
              "-iec", "-stats", "-statistics", "-details", "-resolve", "-oneline",
              "-timestamp", "-tshort", "-Version", "-force", "-batch", "-brief", "-json",
              "-pretty", "-rcvbuf", "-color", "-help", "-netns", "-Numeric", "-all", "-echo")
IP_EXACT = ("-4", "-6", "-0", "-M", "-B", "-echo")
IP_OBJECTS = ("address", "addrlabel", "maddress", "route", "rule", "neighbor", "neighbour",
              "ntable", "ntbl", "link", "l2tp", "fou", "ila", "macsec", "tunnel", "tunl",
              "tuntap", "tap", "token", "tcpmetrics", "tcp_metrics", "monitor", "xfrm",
              "mroute", "mrule", "netns", "netconf", "vrf", "sr", "nexthop", "mptcp", "ioam",
              "help", "stats")
IP_NETNS_VERBS = ("list", "show", "lst", "list-id", "help", "add", "set", "delete", "identify",
                  "pids", "exec", "monitor", "attach")
IP_VRF_VERBS = ("identify", "pids", "exec", "show", "lst", "list", "help")
TC_OPTIONS = ("-stats", "-statistics", "-details", "-raw", "-pretty", "-graph", "-Version",
              "-iec", "-help", "-force", "-batch", "-netns", "-Numeric", "-names", "-nm",
              "-cf", "-conf", "-color", "-timestamp", "-tshort", "-json", "-oneline", "-brief",
              "-echo")
TC_OBJECTS = ("qdisc", "class", "filter", "chain", "actions", "monitor", "exec", "help")

# what would run a program, read commands or names from a file, or switch namespaces
IP_DANGER_OPTIONS = frozenset({"-batch", "-netns", "-all", "-loops", "-rcvbuf", "-color"})
IP_DANGER_OBJECTS = frozenset({"monitor", "vrf"})
IP_DANGER_NETNS = frozenset({"exec", "attach", "monitor", "identify", "pids", "set"})
TC_DANGER_OPTIONS = frozenset({"-batch", "-netns", "-cf", "-conf", "-names", "-nm", "-color",
                               "-force"})
TC_DANGER_OBJECTS = frozenset({"exec", "monitor"})


def iproute2(word: str, table: Sequence[str], exact: Sequence[str] = ()) -> str | None:
    """lib/utils.c matches() down the table: the first keyword `word` is a prefix of."""
    for name in table:
        if name in exact:
            if word == name:
                return name
        elif word and name.startswith(word):
            return name
    return None


def ip_reads(argv: Sequence[str]) -> tuple[list[str], str | None, str | None]:
    """What `ip` makes of argv: its global options, the object, the object's verb."""
    options = []
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        if argv[i] == "--":
            i += 1
            break
        opt = argv[i][1:] if argv[i].startswith("--") else argv[i]
        name = iproute2(opt.split("=", 1)[0] if opt.startswith("-c") else opt, IP_OPTIONS,
                        IP_EXACT)
        options.append(name or f"unknown {argv[i]}")
        i += 1
        if name in ("-loops", "-family", "-batch", "-rcvbuf", "-netns"):
            i += 1
    obj = iproute2(argv[i], IP_OBJECTS) if i < len(argv) else None
    verb = None
    if obj in ("netns", "vrf") and i + 1 < len(argv):
        verb = iproute2(argv[i + 1], IP_NETNS_VERBS if obj == "netns" else IP_VRF_VERBS)
    return options, obj, verb


def tc_reads(argv: Sequence[str]) -> tuple[list[str], str | None]:
    options = []
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        name = iproute2(argv[i], TC_OPTIONS, ("-echo",))
        options.append(name or f"unknown {argv[i]}")
        i += 1
        if name in ("-batch", "-netns", "-cf", "-conf"):
            i += 1
    return options, (iproute2(argv[i], TC_OBJECTS) if i < len(argv) else None)


# --- glibc getopt_long and getopt_long_only ----------------------------------------------

# fio's own options, then every job option (options.c order), with has_arg
FIO_OWN = ("output", "latency-log", "bandwidth-log", "minimal", "output-format",
           "append-terse", "version", "help", "cmdhelp", "enghelp", "showcmd", "readonly",
           "eta", "eta-interval", "eta-newline", "debug", "parse-only", "section",
           "inflate-log", "alloc-size", "profile", "warnings-fatal", "max-jobs",
           "terse-version", "server", "daemonize", "client", "remote-config", "cpuclock-test",
           "crctest", "memcpytest", "idle-prof", "status-interval", "trigger-file",
           "trigger-timeout", "trigger", "trigger-remote", "aux-path", "merge-blktrace-only")
FIO_JOB = tuple("""description name wait_for filename filetype directory filename_format
unique_filename lockfile opendir rw readwrite rw_sequencer ioengine iodepth iodepth_batch
iodepth_batch_submit iodepth_batch_complete_min iodepth_batch_complete
iodepth_batch_complete_max iodepth_low serialize_overlap io_submit_mode size io_size io_limit
fill_device fill_fs filesize file_append offset fileoffset offset_align offset_increment
number_ios num_range bs blocksize ba blockalign bsrange blocksize_range bssplit bs_unaligned
blocksize_unaligned bs_is_seq_rand randrepeat allrandrepeat randseed norandommap
softrandommap sprandom spr_num_regions spr_op spr_cs random_generator random_distribution
random_sequence_stride percentage_random percentage_sequential nrfiles nr_files openfiles
file_service_type fallocate fadvise_hint fsync fdatasync write_barrier sync_file_range direct
atomic buffered overwrite loops numjobs startdelay runtime timeout time_based verify_only
ramp_time ramp_size clocksource mem iomem iomem_align mem_align verify do_verify
verify_policy verifysort verifysort_nr verify_interval verify_offset verify_pattern
verify_pattern_interval verify_fatal verify_dump verify_async verify_backlog
verify_backlog_batch verify_async_cpus experimental_verify verify_state_load
verify_state_save verify_write_sequence verify_header_seed trim_percentage trim_verify_zero
trim_backlog trim_backlog_batch write_iolog read_iolog read_iolog_chunked replay_no_stall
replay_redirect replay_scale replay_align replay_time_scale replay_skip merge_blktrace_file
merge_blktrace_scalars merge_blktrace_iters exec_prerun exec_postrun ioscheduler zonemode
zonesize zonecapacity zonerange zoneskip read_beyond_wp max_open_zones job_max_open_zones
ignore_zone_limits zone_reset_threshold zone_reset_frequency recover_zbd_write_error
write_zone_remainder fdp dataplacement data_placement plid_select fdp_pli_select plids
fdp_pli dp_scheme lockmem rwmixread rwmixwrite rwmixcycle comm nice prio prioclass priohint
thinktime thinktime_spin thinkcycles thinktime_blocks thinktime_blocks_type thinktime_iotime
rate rate_min ratemin rate_iops rate_iops_min rate_process rate_cycle ratecycle
rate_ignore_thinktime max_latency latency_target latency_window latency_percentile
latency_run invalidate sync write_hint create_serialize create_fsync create_on_open
create_only allow_file_create allow_mounted_write pre_read cpumask cpus_allowed
cpus_allowed_policy numa_cpu_nodes numa_mem_policy gpu_dev_id end_fsync fsync_on_close
end_syncfs unlink unlink_each_loop exitall exit_what exitall_on_error stonewall
wait_for_previous new_group thread per_job_logs write_bw_log write_lat_log write_iops_log
log_entries log_avg_msec log_hist_msec log_hist_coarseness write_hist_log log_window_value
log_max_value log_offset log_prio log_issue_time log_compression log_compression_cpus
log_store_compressed log_alternate_epoch log_unix_epoch log_alternate_epoch_clock_id
block_error_percentiles bwavgtime iopsavgtime group_reporting stats zero_buffers
refill_buffers scramble_buffers buffer_pattern buffer_compress_percentage
buffer_compress_chunk dedupe_percentage dedupe_global dedupe_mode
dedupe_working_set_percentage clat_percentiles lat_percentiles slat_percentiles
percentile_list significant_figures disk_util gtod_reduce disable_lat disable_clat
disable_slat disable_bw_measurement disable_bw gtod_cpu job_start_clock_id
unified_rw_reporting continue_on_error ignore_error error_dump profile cgroup
cgroup_nodelete cgroup_weight uid gid kb_base unit_base hugepage-size flow_id flow
flow_watermark flow_sleep steadystate ss steadystate_duration ss_dur steadystate_ramp_time
ss_ramp steadystate_check_interval ss_interval""".split())  # noqa: SIM905
FIO_SHORT = "o:l:b::mF:f::vhc::i::sre:O:E:d:Px:X:a:p:wj:V:S::D:C:R:TG::M::I:L:W:B:H:J:K:A"
FIO_DANGER = frozenset({
    "output", "latency-log", "bandwidth-log", "append-terse", "enghelp", "server", "daemonize",
    "client", "remote-config", "trigger-file", "trigger", "trigger-remote", "aux-path",
    "inflate-log", "merge-blktrace-only", "exec_prerun", "exec_postrun", "write_iolog",
    "read_iolog", "read_iolog_chunked", "merge_blktrace_file", "write_bw_log",
    "write_lat_log", "write_iops_log", "write_hist_log", "unlink", "unlink_each_loop",
    "create_only", "ioscheduler", "cgroup", "cgroup_weight", "cgroup_nodelete", "lockfile",
    "verify_state_save", "verify", "do_verify", "verify_state_load", "filename_format",
    "opendir", "uid", "gid", "profile", "section",
})

# iperf3's longopts (name, has_arg, val): val groups the names getopt_long takes as one
IPERF3_LONG = (
    ("port", 1, "p"), ("format", 1, "f"), ("interval", 1, "i"), ("daemon", 0, "D"),
    ("one-off", 0, "1"), ("verbose", 0, "V"), ("json", 0, "J"), ("json-stream", 0, "js"),
    ("json-stream-full-output", 0, "jsf"), ("version", 0, "v"), ("server", 0, "s"),
    ("client", 1, "c"), ("udp", 0, "u"), ("bitrate", 1, "b"), ("bandwidth", 1, "b"),
    ("server-bitrate-limit", 1, "sbl"), ("server-max-duration", 1, "smd"), ("time", 1, "t"),
    ("bytes", 1, "n"), ("blockcount", 1, "k"), ("length", 1, "l"), ("parallel", 1, "P"),
    ("reverse", 0, "R"), ("bidir", 0, "bidir"), ("window", 1, "w"), ("bind", 1, "B"),
    ("bind-dev", 1, "bd"), ("cport", 1, "cport"), ("set-mss", 1, "M"), ("no-delay", 0, "N"),
    ("version4", 0, "4"), ("version6", 0, "6"), ("tos", 1, "S"), ("dscp", 1, "dscp"),
    ("extra-data", 1, "xd"), ("flowlabel", 1, "L"), ("zerocopy", 0, "Z"), ("omit", 1, "O"),
    ("file", 1, "F"), ("repeating-payload", 0, "rp"), ("timestamps", 2, "ts"),
    ("affinity", 1, "A"), ("title", 1, "T"), ("congestion", 1, "C"),
    ("linux-congestion", 1, "C"), ("sctp", 0, "sctp"), ("nstreams", 1, "ns"),
    ("xbind", 1, "X"), ("pidfile", 1, "I"), ("logfile", 1, "lf"), ("forceflush", 0, "ff"),
    ("get-server-output", 0, "gso"), ("udp-counters-64bit", 0, "u64"),
    ("no-fq-socket-pacing", 0, "nfq"), ("dont-fragment", 0, "df"), ("skip-rx-copy", 0, "src"),
    ("username", 1, "un"), ("rsa-public-key-path", 1, "rpub"),
    ("rsa-private-key-path", 1, "rpriv"), ("authorized-users-path", 1, "aup"),
    ("time-skew-threshold", 1, "tst"), ("use-pkcs1-padding", 0, "pk"), ("fq-rate", 1, "fq"),
    ("pacing-timer", 1, "pt"), ("connect-timeout", 1, "ct"), ("idle-timeout", 1, "it"),
    ("rcv-timeout", 1, "rt"), ("snd-timeout", 1, "st"), ("cntl-ka", 2, "ka"),
    ("mptcp", 0, "m"), ("gsro", 0, "gsro"), ("debug", 2, "d"), ("help", 0, "h"),
)
IPERF3_DANGER = frozenset({"daemon", "one-off", "server", "file", "pidfile", "logfile",
                           "rsa-public-key-path", "rsa-private-key-path",
                           "authorized-users-path", "username"})
IPERF3_DANGER_SHORT = frozenset("D1sFIX")

SYSCTL_LONG = (("all", 0, "a"), ("deprecated", 0, "dep"), ("dry-run", 0, "dry"),
               ("binary", 0, "b"), ("ignore", 0, "e"), ("names", 0, "N"), ("values", 0, "n"),
               ("load", 2, "p"), ("quiet", 0, "q"), ("write", 0, "w"), ("system", 0, "sys"),
               ("pattern", 1, "r"), ("help", 0, "h"), ("version", 0, "V"))
SYSCTL_DANGER = frozenset({"load", "system"})


def getopt_long(word: str, table: Sequence[tuple[str, int, str]], long_only: bool) -> str | None:
    """glibc's process_long_option for `--word` (or `-word` under getopt_long_only): the
    long option it means, None when unknown or ambiguous."""
    name = word.lstrip("-").split("=", 1)[0]
    for entry in table:
        if entry[0] == name:
            return entry[0]
    found = [e for e in table if name and e[0].startswith(name)]
    if not found:
        return None
    first = found[0]
    for other in found[1:]:
        if long_only or other[1] != first[1] or other[2] != first[2]:
            return None  # ambiguous
    return first[0]


def fio_table() -> tuple[tuple[str, int, str], ...]:
    return tuple((n, 1, n) for n in (*FIO_OWN, *FIO_JOB))


def fio_option(word: str) -> str | None:
    """What fio's getopt_long_only makes of an option word: a long option, or `-x` for a
    short one (a single letter of its optstring, when no long option matches)."""
    body = word[2:] if word.startswith("--") else word[1:]
    if not word.startswith("--") and len(body) == 1 and body in FIO_SHORT.replace(":", ""):
        return "-" + body
    found = getopt_long(word, fio_table(), long_only=True)
    if found is None and not word.startswith("--") and body[:1] in FIO_SHORT.replace(":", ""):
        return "-" + body[0]
    return found


IPERF3_SHORT = "p:f:i:D1VJvsc:ub:t:n:k:l:P:Rw:B:M:N46S:L:ZO:F:A:T:C:dI:mhX:"
SYSCTL_SHORT = "bneNwfp::qoxaAXr:Vdh"


def getopt_letters(word: str, optstring: str) -> list[str]:
    """The letters getopt reads from one `-abc` word: up to and including the first that
    takes a value (the rest of the word is that value)."""
    out = []
    for letter in word[1:]:
        at = optstring.find(letter)
        if letter == ":" or at < 0:
            out.append(letter)  # getopt's '?': an error, which ends nothing here
            continue
        out.append(letter)
        if optstring[at + 1:at + 2] == ":":
            break
    return out
