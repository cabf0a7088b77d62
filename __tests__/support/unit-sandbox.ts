// Runs a systemd unit's service the way systemd would sandbox it, on a machine without systemd as PID 1:
// bubblewrap gives it a mount namespace where the system is read-only (ProtectSystem=strict), /tmp is its
// own (PrivateTmp), homes are empty (ProtectHome), /dev holds only the basic devices (PrivateDevices), and
// only the unit's StateDirectory, CacheDirectory, RuntimeDirectory and ReadWritePaths are writable; setpriv
// then drops to the unit's user with no new privileges and no capabilities, under the unit's umask, and
// runs its ExecStart with the environment systemd would give it (EnvironmentFile, then Environment=). A
// socket-activated unit is started by systemd-socket-activate, which listens where the .socket unit says and
// hands the service its socket on the first connection, as systemd does.
// What it does not emulate (the system-call filter, address families, namespace and kernel restrictions)
// is listed in docs/deploy-server.md.
import fs from "node:fs";
import path from "node:path";

export interface Unit {
  /** The [Service] section: each key with its values in order (a key may repeat, as Environment= does). */
  readonly service: ReadonlyMap<string, readonly string[]>;
  /** A .socket unit's [Socket] section. */
  readonly socket: ReadonlyMap<string, readonly string[]>;
}

/** Reads a unit file's [Service] and [Socket] sections (comments, blank lines and other sections are skipped). */
export const readUnit = (file: string): Unit => {
  const service = new Map<string, string[]>();
  const socket = new Map<string, string[]>();
  let section = "";
  for (const raw of fs.readFileSync(file, "utf8").split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1] ?? "";
      continue;
    }
    const into = section === "Service" ? service : section === "Socket" ? socket : null;
    if (into === null) continue;
    const equals = line.indexOf("=");
    const key = line.slice(0, equals);
    into.set(key, [...(into.get(key) ?? []), line.slice(equals + 1)]);
  }
  return { service, socket };
};

/** The last value of a key, as systemd takes a setting given twice; undefined when the unit does not set it. */
export const setting = (unit: Unit, key: string): string | undefined => unit.service.get(key)?.at(-1);

const unquote = (value: string): string =>
  /^"(.*)"$/.exec(value)?.[1]?.replace(/\\(["\\])/g, "$1") ?? /^'(.*)'$/.exec(value)?.[1] ?? value;

/** An environment file as systemd reads it: KEY=value lines, comments and blank lines skipped, quotes removed. */
const readEnvironmentFile = (file: string): Record<string, string> => {
  const env: Record<string, string> = {};
  for (const raw of fs.readFileSync(file, "utf8").split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match) throw new Error(`${file}: not a KEY=value line: ${line}`);
    env[match[1]!] = unquote(match[2]!.trim());
  }
  return env;
};

/** The folders systemd makes for the unit and grants it: StateDirectory under /var/lib, and so on. */
export const grantedDirectories = (unit: Unit): { readonly path: string; readonly mode: string }[] =>
  (
    [
      ["StateDirectory", "/var/lib"],
      ["CacheDirectory", "/var/cache"],
      ["RuntimeDirectory", "/run"],
      ["LogsDirectory", "/var/log"],
    ] as const
  ).flatMap(([key, base]) =>
    (setting(unit, key) ?? "")
      .split(/\s+/)
      .filter(Boolean)
      .map((name) => ({ path: path.join(base, name), mode: setting(unit, `${key}Mode`) ?? "0755" })),
  );

export interface SandboxOptions extends MachineOptions {
  /** The unit's user's numeric ids (the user must exist: the unit names it). */
  readonly uid: number;
  readonly gid: number;
  /** Started by its socket: LISTEN_PID names the service's own process, as systemd sets it. */
  readonly socketActivated?: boolean;
}

/** How the machine the sandbox sees differs from this one. */
export interface MachineOptions {
  /** Files or folders placed into the sandbox's view of the machine, read-only: [host path, sandbox path]. */
  readonly machine?: readonly (readonly [string, string])[];
  /** Symbolic links made in the sandbox's view: [target, link]. */
  readonly links?: readonly (readonly [string, string])[];
  /** Folders emptied in the sandbox's view, before `machine` and `links` are placed (e.g. /usr/local/bin). */
  readonly emptied?: readonly string[];
}

/** bwrap's arguments that set the machine up as the caller says: folders emptied, files placed, links made. */
export const machineLayer = ({ emptied = [], machine = [], links = [] }: SandboxOptions | MachineOptions): string[] => [
  ...emptied.flatMap((folder) => ["--tmpfs", folder]),
  ...machine.flatMap(([host, inside]) => ["--ro-bind", host, inside]),
  ...links.flatMap(([target, link]) => ["--symlink", target, link]),
];

/** The environment systemd gives the service: its own variables, the environment file's, then Environment=. */
export const serviceEnvironment = (unit: Unit, userName: string): Record<string, string> => {
  const env: Record<string, string> = {
    PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin",
    USER: userName,
    LOGNAME: userName,
    HOME: "/",
    LANG: "C.UTF-8",
  };
  const [state] = grantedDirectories(unit).filter((folder) => folder.path.startsWith("/var/lib/"));
  const [cache] = grantedDirectories(unit).filter((folder) => folder.path.startsWith("/var/cache/"));
  if (state) env.STATE_DIRECTORY = state.path;
  if (cache) env.CACHE_DIRECTORY = cache.path;
  const file = setting(unit, "EnvironmentFile");
  if (file) Object.assign(env, readEnvironmentFile(file.replace(/^-/, "")));
  for (const assignment of unit.service.get("Environment") ?? []) {
    const equals = assignment.indexOf("=");
    env[assignment.slice(0, equals)] = unquote(assignment.slice(equals + 1));
  }
  return env;
};

const on = (unit: Unit, key: string) => ["true", "yes", "1", "on"].includes((setting(unit, key) ?? "").toLowerCase());

/**
 * The command line that runs the unit's ExecStart in the emulated sandbox (bwrap, then setpriv), for a
 * machine the caller has set up as the unit expects (its user, its WorkingDirectory, its environment file).
 */
export const sandboxedCommand = (unit: Unit, command: readonly string[], options: SandboxOptions): string[] => {
  if (setting(unit, "ProtectSystem") !== "strict") throw new Error("the emulation covers ProtectSystem=strict only");
  const bwrap = ["bwrap", "--ro-bind", "/", "/", "--proc", "/proc"];
  bwrap.push(...(on(unit, "PrivateDevices") ? ["--dev", "/dev"] : ["--dev-bind", "/dev", "/dev"]));
  // systemd's private /tmp is a fresh folder with /tmp's own mode: anyone may write, only the owner remove.
  if (on(unit, "PrivateTmp"))
    bwrap.push("--perms", "1777", "--tmpfs", "/tmp", "--perms", "1777", "--tmpfs", "/var/tmp");
  if (on(unit, "ProtectHome")) {
    for (const home of ["/home", "/root", "/run/user"]) if (fs.existsSync(home)) bwrap.push("--tmpfs", home);
  }
  bwrap.push(...machineLayer(options));
  const writable = [
    ...grantedDirectories(unit).map((folder) => folder.path),
    ...(setting(unit, "ReadWritePaths") ?? "").split(/\s+/).filter(Boolean),
  ];
  for (const folder of writable) bwrap.push("--bind", folder, folder);
  const workingDirectory = setting(unit, "WorkingDirectory");
  if (workingDirectory) bwrap.push("--chdir", workingDirectory);
  bwrap.push("--die-with-parent");
  const setpriv = [
    "setpriv",
    `--reuid=${options.uid}`,
    `--regid=${options.gid}`,
    "--init-groups",
    ...(on(unit, "NoNewPrivileges") ? ["--no-new-privs"] : []),
    ...(setting(unit, "CapabilityBoundingSet") === "" ? ["--bounding-set=-all", "--inh-caps=-all"] : []),
  ];
  const umask = setting(unit, "UMask") ?? "0022";
  const listen = options.socketActivated ? "export LISTEN_PID=$$ && " : "";
  return [...bwrap, "--", ...setpriv, "/bin/sh", "-c", `umask ${umask} && ${listen}exec "$0" "$@"`, ...command];
};

/**
 * The command line that listens where a .socket unit says and, on the first connection, starts its service's
 * `command` with the socket as file descriptor 3 and the service's environment (systemd-socket-activate gives
 * the program only what it is told, as systemd does without Accept=). The socket's owner and mode are the
 * caller's to set once it exists (`socketOwnership`).
 */
export const socketActivatedCommand = (
  socketUnit: Unit,
  command: readonly string[],
  env: Readonly<Record<string, string>>,
): string[] => {
  const listen = socketUnit.socket.get("ListenStream")?.at(-1);
  if (!listen?.startsWith("/")) throw new Error("the emulation covers a ListenStream= path only");
  if (["yes", "true"].includes(socketUnit.socket.get("Accept")?.at(-1) ?? ""))
    throw new Error("the emulation covers Accept=no only");
  const setenv = Object.entries(env).map(([name, value]) => `--setenv=${name}=${value}`);
  return ["systemd-socket-activate", "--listen", listen, ...setenv, "--", ...command];
};

/** The .socket unit's socket path, and the owner and mode it gives the socket. */
export const socketOwnership = (
  socketUnit: Unit,
): { readonly path: string; readonly user: string; readonly group: string; readonly mode: number } => {
  const value = (key: string, fallback: string) => socketUnit.socket.get(key)?.at(-1) ?? fallback;
  return {
    path: value("ListenStream", ""),
    user: value("SocketUser", "root"),
    group: value("SocketGroup", value("SocketUser", "root")),
    mode: Number.parseInt(value("SocketMode", "0666"), 8),
  };
};

/** The unit's ExecStart, split into words as systemd splits a command line without quotes. */
export const execStart = (unit: Unit): string[] => {
  const line = setting(unit, "ExecStart");
  if (!line) throw new Error("the unit has no ExecStart");
  if (/["'$%\\]/.test(line)) throw new Error(`the emulation splits plain ExecStart lines only: ${line}`);
  return line.split(/\s+/);
};
