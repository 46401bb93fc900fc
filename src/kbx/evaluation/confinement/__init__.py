"""OS confinement of a candidate worker (DESIGN §4): the boundary the candidate's own code cannot switch off.

Applied in the candidate worker before any candidate code is imported, by trusted code that runs first:

- `warden`: the process the orchestrator starts enters a new PID namespace (and a user namespace where kbx does not
  run as root) and forks; its child, PID 1 of that namespace, becomes the candidate worker. Every process the
  candidate starts lives in that namespace and the kernel kills them all when PID 1 ends; the warden outside waits,
  kills the namespace when it is itself killed (the child's parent-death signal) and passes the exit status on.
- `view`: the child enters new mount, network, IPC and UTS namespaces and pivots into a filesystem view built on an
  empty tmpfs: the Python installation, the system libraries and the GPU's device nodes read-only, a fresh /proc,
  /dev/shm and /tmp, and its own job directory as the only writable place at the same path; kbx's source, the store,
  run folders, home directories and other jobs' directories do not exist there.
- `privileges`: the child drops to an unprivileged UID (or, in a user namespace, drops every capability), sets
  no_new_privs and installs `seccomp`'s filter, which denies process inspection (ptrace, process_vm_*), kernel
  facilities (perf_event_open, bpf, keyctl, io_uring, module loading), any change of the mounts or namespaces, and
  socket families other than AF_UNIX.

Everything here needs only the standard library (ctypes into libc): it runs on the GPU machine as it is.
"""
