/**
 * Where a sandbox sees the checkout's monitor: the hook, the change log and its acks (read-only), and the cookies
 * (writable); `tree` is a command's working tree, which the hook takes for its own unless told another.
 */
export const monitorInside = { folder: "/fsmonitor", cookies: "/fsmonitor-cookies", tree: "/project" } as const;

/** A checkout's monitor on the host (checkout.ts), and the `core.untrackedCache` its sandbox's git gets. */
export interface TreeMonitor {
  folder: string;
  cookies: string;
  untrackedCache: "true" | "keep";
}

/** The monitor's folders as a sandbox binds them, and the settings that make its git ask the hook (as GIT_CONFIG_*). */
export interface MonitorLayout {
  folders: Array<{ host: string; inside: string; writable: boolean }>;
  settings: Array<readonly [string, string]>;
}

/**
 * The monitor as a sandbox whose working tree is at `tree` holds it: a command's at /project, a script's at
 * /sandbox/project (docs/repositories.md "git status in a command").
 */
export function monitorLayout(monitor: TreeMonitor, tree: string): MonitorLayout {
  return {
    folders: [
      { host: monitor.folder, inside: monitorInside.folder, writable: false },
      { host: monitor.cookies, inside: monitorInside.cookies, writable: true },
    ],
    settings: monitorGitConfig(monitor.untrackedCache, tree),
  };
}

/**
 * The settings that make a command's git ask the hook (given by GIT_CONFIG_* variables, which win over any config
 * file). `untrackedCache`: `true` makes git status add the untracked cache and write the index whenever it read a
 * folder again, which with a monitor is at every change (git invalidates the folder of each path it is told of), a
 * rewrite of the whole index (3.4 MB at 50,000 files) that the host then reads back; `keep` uses the cache and
 * writes it only along with what else changed (git writes by itself past 100 paths, so the token moves on). So
 * `true` goes only to the commands of a fresh epoch, whose git status reads everything and writes the index anyway.
 * Those also keep git's preload (threads that stat every file, which a first answer of everything needs); the others
 * go without, as it would only walk every entry to stat the few the hook named. `core.checkStat=minimal`: the host's
 * git wrote the index with its own uid, gid and inodes, and inside the sandbox the files belong to the sandbox's uid,
 * so by default git took every entry for changed and hashed every file again at a checkout's first status (1 GB: 3
 * to 4 s); minimal compares the size and the whole seconds of mtime and ctime, which with git's racy-entry check
 * (an entry written in the index's own second is looked at again) still finds every change.
 */
function monitorGitConfig(untrackedCache: "true" | "keep", tree: string): Array<readonly [string, string]> {
  // git runs a hook with a space in its name through sh, so another tree is told the hook as a variable of its own
  const hook = tree === monitorInside.tree ? `${monitorInside.folder}/query` : `AO_FSMONITOR_TREE=${tree} ${monitorInside.folder}/query`;
  return [
    ["core.fsmonitor", hook],
    ["core.fsmonitorHookVersion", "2"],
    ["core.untrackedCache", untrackedCache],
    ["core.preloadIndex", untrackedCache === "true" ? "true" : "false"],
    ["core.checkStat", "minimal"],
  ];
}

/** How many times the hook looks for its ack at once (the watcher's ack takes about a millisecond; a sleep is a process to start). */
const ackSpins = 1000;
/** Then how many times 5 ms apart before it answers "everything" (1 s and more). */
const ackSleeps = 200;

/**
 * git's `core.fsmonitor` hook, protocol version 2 (githooks(5) "fsmonitor-watchman"), as a command's git runs it
 * (docs/repositories.md "git status in a command"): called as `query 2 <token>` from the working tree's root, it
 * prints a new token, a NUL, then the paths changed since `<token>`, each NUL-ended, or `/` alone (everything may
 * have changed). A token is `<epoch>:<offset>` in the change log the host's watcher writes (`log-<epoch>`, paths
 * NUL-ended). To be sure the log holds every change made before it was called, the hook makes a cookie file in the
 * watched cookie folder and waits for the watcher's ack of it (`ack-<cookie>`: the epoch and the log's length
 * when the cookie's event was read; inotify delivers in order). Any doubt is answered with `/`: another working
 * tree than /project, or `AO_FSMONITOR_TREE` where the sandbox shows the checkout elsewhere (a repository made in
 * /tmp; a variable a command sets itself misleads only its own git), a cookie that cannot be made, no ack in time, a token of another epoch (a
 * restarted or doubting watcher starts a new one) or malformed or past the log's end, a log that cannot be read.
 * The paths are the log's from the token's offset to its end, past the ack too: what was written since is also a
 * change after the token, and told again next time (telling git more than changed costs a stat, never a wrong
 * answer). POSIX sh and coreutils, and as few processes as it can: a hook runs at every git command.
 */
export const monitorHookScript = `#!/bin/sh
everything() {
  printf '%s\\0/\\0' "\${1:-0:0}"
  exit 0
}
[ "$1" = 2 ] || exit 1
cd -P . 2>/dev/null && [ "$PWD" = "\${AO_FSMONITOR_TREE:-${monitorInside.tree}}" ] || everything
set -C
n=0
while :; do
  n=$((n + 1))
  [ "$n" -gt 8 ] && everything
  name=$$-$n
  [ -e ${monitorInside.folder}/ack-$name ] && continue
  { true > ${monitorInside.cookies}/$name; } 2>/dev/null && break
done
i=0
while [ ! -e ${monitorInside.folder}/ack-$name ]; do
  i=$((i + 1))
  [ "$i" -gt ${ackSpins} ] || continue
  [ "$i" -gt ${ackSpins + ackSleeps} ] && everything
  sleep 0.005
done
read -r epoch end < ${monitorInside.folder}/ack-$name || everything
case $epoch:$end in *[!0-9a-f:]* | :* | *:) everything ;; esac
token=$epoch:$end
case $2 in "$epoch":*) start=\${2#"$epoch":} ;; *) everything "$token" ;; esac
case $start in "" | *[!0-9]* | ????????????????*) everything "$token" ;; esac
[ "$start" -le "$end" ] || everything "$token"
exec 3< ${monitorInside.folder}/log-$epoch || everything "$token"
printf '%s\\0' "$token"
[ "$start" -lt "$end" ] || exit 0
exec tail -c +$((start + 1)) <&3
`;
