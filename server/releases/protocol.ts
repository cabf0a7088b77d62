import * as z from "zod/mini";

/**
 * What the primary and a release's server say to each other over the cluster's channel. The two run code of
 * different commits (the primary is the checkout's, the worker a release's), so every message names the
 * protocol's version, every question is answered, and a message of a type the receiver does not know is
 * answered as unknown and logged rather than dropped or fatal: a rollback to an older release keeps serving.
 */
export const PROTOCOL_VERSION = 1;

const versioned = <K extends string, T extends z.core.$ZodLooseShape>(type: K, shape: T) =>
  z.object({ protocol: z.number(), type: z.literal(type), ...shape });

/** From a worker: it takes connections now (once its app is ready). */
const ready = versioned("ready", {});
/** From a worker: GitHub pushed `commit` in delivery `delivery`; answered with a deploy-answer. */
const deploy = versioned("deploy", { id: z.number(), commit: z.string(), delivery: z.nullable(z.string()) });
/** From a worker: whether a deploy runs; answered with a deploy-status of the same id. */
const statusQuestion = versioned("deploy-status", { id: z.number() });

/** From the primary: stop taking connections, finish what you hold and exit. */
const stop = versioned("stop", {});
/** From the primary, with a socket handle: a visitor's connection to serve. */
const connection = versioned("connection", {});
const deployAnswer = versioned("deploy-answer", { id: z.number(), accepted: z.boolean(), message: z.string() });
const statusAnswer = versioned("deploy-status", {
  id: z.number(),
  running: z.boolean(),
  queued: z.nullable(z.string()),
});

/** Either side's answer to a message it does not know (its type, and its id when it had one). */
const unknown = versioned("unknown", { of: z.string(), id: z.optional(z.number()) });

const fromWorker = z.discriminatedUnion("type", [ready, deploy, statusQuestion, unknown]);
const fromPrimary = z.discriminatedUnion("type", [stop, connection, deployAnswer, statusAnswer, unknown]);

export type WorkerMessage = z.infer<typeof fromWorker>;
export type PrimaryMessage = z.infer<typeof fromPrimary>;

/**
 * Between the primary and the deployer's own process (deployer-process.ts). Both run the checkout's code,
 * so they always speak one version; the messages are checked all the same.
 */
const toDeployer = z.discriminatedUnion("type", [
  versioned("accept", { id: z.number(), commit: z.string(), delivery: z.nullable(z.string()) }),
  versioned("stop", {}),
]);
const fromDeployer = z.discriminatedUnion("type", [
  versioned("accepted", { id: z.number(), accepted: z.boolean(), message: z.string() }),
  versioned("activity", { running: z.boolean(), queued: z.nullable(z.string()) }),
  versioned("live", {}),
]);

export type ToDeployer = z.infer<typeof toDeployer>;
export type FromDeployer = z.infer<typeof fromDeployer>;

type Unversioned<T> = T extends unknown ? Omit<T, "protocol"> : never;

/** A message with this side's version. */
export const message = <T extends WorkerMessage | PrimaryMessage | ToDeployer | FromDeployer>(
  body: Unversioned<T>,
): T => ({ protocol: PROTOCOL_VERSION, ...body }) as T;

/** What came over the channel: a message this side knows, or what to answer and log. */
export type Received<T> =
  { readonly known: T } | { readonly known: null; readonly type: string; readonly id: number | undefined };

const readAs =
  <T>(schema: z.ZodMiniType<T>) =>
  (raw: unknown): Received<T> => {
    const parsed = schema.safeParse(raw);
    if (parsed.success) return { known: parsed.data };
    const { type, id } = (typeof raw === "object" && raw !== null ? raw : {}) as { type?: unknown; id?: unknown };
    return {
      known: null,
      type: typeof type === "string" ? type : typeof raw,
      id: typeof id === "number" ? id : undefined,
    };
  };

/** A message from a worker, as the primary reads it. */
export const readWorkerMessage = readAs(fromWorker);
/** A message from the primary, as a worker reads it. */
export const readPrimaryMessage = readAs(fromPrimary);
/** A message to the deployer's process, as it reads it. */
export const readToDeployer = readAs(toDeployer);
/** A message from the deployer's process, as the primary reads it. */
export const readFromDeployer = readAs(fromDeployer);
