import { randomBytes } from "node:crypto";
import path from "node:path";

/**
 * A release's server run by the primary takes its visitors' connections from the primary (worker-link.ts),
 * which holds the public socket itself. The primary runs a release's server only when the release has this
 * compiled module: one made before it would try to listen on the port the primary holds, and never serve.
 */
export const HANDOFF_MODULE = path.join("dist", "server", "releases", "handoff.js");

/**
 * Where a release's server listens of its own: an address in Linux's abstract namespace, which no file
 * holds and nobody is told. It listens only so that Node runs its server as a listening one (the request
 * and header time-outs, and closing idle connections at a stop); visitors' connections come from the primary.
 */
export const privateAddress = (): string => `\0cardinal-site-${process.pid}-${randomBytes(6).toString("hex")}`;
