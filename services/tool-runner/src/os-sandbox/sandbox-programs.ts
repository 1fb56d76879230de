/**
 * The programs every OS sandbox needs: Debian's bubblewrap, util-linux's prlimit and the system python3 (all under
 * /usr). python3 runs the root tool-runner's folder binder (folder-binder.ts) and run_script's launcher and scripts.
 */
export const sandboxPrograms = { bwrap: "/usr/bin/bwrap", prlimit: "/usr/bin/prlimit", python: "/usr/bin/python3" } as const;
