import type http from "node:http";
import net from "node:net";
import type { DeployAcceptance, DeployActivity, Deployer } from "./deployer";
import { HandedConnections } from "./handoff";
import { deployStatus, type DeployStatus } from "./release-store";
import { message, readPrimaryMessage, readWorkerMessage, type PrimaryMessage, type WorkerMessage } from "./protocol";

/**
 * The two ends of the cluster's channel between the primary and the live release's server (its worker), in
 * the messages of protocol.ts: the primary hands the worker each visitor's connection and tells it to stop;
 * the worker takes GitHub's webhook and asks the primary to deploy, and /healthz asks whether a deploy runs.
 * The releases themselves are read from disk.
 */

/** The deploys as a route sees them, whether the deployer runs in this process or in the primary. */
export interface ReleaseControl {
  /** Asks for a deploy of a commit of the branch, pushed in GitHub's delivery `delivery`. */
  request(commit: string, delivery: string | null): Promise<DeployAcceptance>;
  status(): Promise<DeployStatus>;
}

/** The deployer of this process (the primary's, or a test's). */
export const localReleases = (deployer: Deployer): ReleaseControl => ({
  request: (commit, delivery) => Promise.resolve(deployer.accept(commit, delivery)),
  status: () => Promise.resolve(deployer.status()),
});

// The primary answers at once, or after waiting up to 2 s on its deployer's answer (deployer-process.ts); one
// that has not answered past this is stopping, or does not speak this protocol. Longer than the primary's own
// wait, so a push its deployer took is never answered here as not taken.
const ANSWER_TIMEOUT_MS = 5_000;

type Channel = Pick<NodeJS.Process, "send" | "on" | "off" | "connected">;

/** What the worker's end does with the primary's orders. */
interface WorkerEndOptions {
  /** A line for the log, at its level. */
  readonly log: (level: "warn" | "error", fields: Record<string, unknown>, line: string) => void;
  /** The primary's order to stop (the service stops, or another release's server took over). */
  readonly onStop: () => void;
}

export interface WorkerEnd {
  /** The deploys, through the primary. */
  readonly releases: (deployDir: string) => ReleaseControl;
  /** Serves every connection the primary hands over with `server`, as if it had accepted it. */
  readonly takeConnections: (server: http.Server) => void;
  /** Tells the primary this server takes connections now. */
  readonly ready: () => void;
  /** At a stop: closes each connection handed over once it has given the answers under way; resolves when all have closed. */
  readonly drained: () => Promise<void>;
}

const NOT_ANSWERED =
  "The server that runs the deploys did not answer: redeliver the push from the hook's Recent Deliveries.";

/**
 * In a worker: one listener on the channel for every message from the primary. The channel closes when the
 * primary retires this worker; a request still in hand then finds no deploys to ask (a message on a closed
 * channel would be an error nobody catches).
 */
export const workerEnd = (options: WorkerEndOptions, channel: Channel = process): WorkerEnd => {
  let nextId = 0;
  /** The questions awaiting the primary's answer, by id, with the type their answer has. */
  const waiting = new Map<
    number,
    { readonly answer: PrimaryMessage["type"]; readonly settle: (answer: PrimaryMessage | null) => void }
  >();
  /** The connections the primary hands over, once this server takes them. */
  let handed: HandedConnections | null = null;
  /** Sends to the primary; false once the channel has closed. */
  const sent = (body: WorkerMessage): boolean => {
    if (!channel.connected || !channel.send) return false;
    channel.send(body);
    return true;
  };
  channel.on("message", (raw: unknown, handle: unknown) => {
    const received = readPrimaryMessage(raw);
    const { known } = received;
    if (known === null) {
      options.log(
        "warn",
        { type: received.type },
        `a message from the primary of a type this server does not know: ${received.type}`,
      );
      sent(message<WorkerMessage>({ type: "unknown", of: received.type, id: received.id }));
      return;
    }
    if (known.type === "connection") {
      if (handle instanceof net.Socket) {
        if (handed) handed.take(handle);
        else handle.destroy();
      }
    } else if (known.type === "stop") {
      // A connection handed over just before the stop is idle until its first request's bytes are read.
      void (handed?.settled() ?? Promise.resolve()).then(options.onStop);
    } else if (known.type === "unknown") {
      options.log("error", { of: known.of }, `the primary does not know this server's ${known.of} message`);
      if (known.id !== undefined) waiting.get(known.id)?.settle(null);
    } else {
      // Only the answer to that question: another message with its id is not one.
      const question = waiting.get(known.id);
      if (question?.answer === known.type) question.settle(known);
    }
  });
  /** Asks the primary; resolves with its answer, or null (no answer in time, a closed channel, not understood). */
  const ask = (
    answerType: PrimaryMessage["type"],
    question: (id: number) => WorkerMessage,
  ): Promise<PrimaryMessage | null> =>
    new Promise((resolve) => {
      const id = (nextId += 1);
      const settle = (answer: PrimaryMessage | null) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(answer);
      };
      const timer = setTimeout(() => settle(null), ANSWER_TIMEOUT_MS);
      waiting.set(id, { answer: answerType, settle });
      if (!sent(question(id))) settle(null);
    });
  return {
    releases: (deployDir) => ({
      request: async (commit, delivery) => {
        const answer = await ask("deploy-answer", (id) =>
          message<WorkerMessage>({ type: "deploy", id, commit, delivery }),
        );
        return answer?.type === "deploy-answer"
          ? { accepted: answer.accepted, message: answer.message }
          : { accepted: false, message: NOT_ANSWERED };
      },
      status: async () => {
        const answer = await ask("deploy-status", (id) => message<WorkerMessage>({ type: "deploy-status", id }));
        // No answer: no deploy is known to run.
        const known = answer?.type === "deploy-status" ? answer : null;
        return deployStatus(deployDir, known?.running ?? false, known?.queued ?? null);
      },
    }),
    takeConnections: (server) => {
      handed = new HandedConnections(server);
    },
    drained: () => handed?.drained() ?? Promise.resolve(),
    ready: () => void sent(message<WorkerMessage>({ type: "ready" })),
  };
};

/** The primary's part of a worker's message: what it sends back. */
export type Reply = (body: PrimaryMessage) => void;

/** The deploys as the primary answers for them: the deployer's process, or a deployer in this process. */
interface Deploys {
  accept(commit: string, delivery: string | null): DeployAcceptance | Promise<DeployAcceptance>;
  activity(): DeployActivity;
}

/**
 * In the primary: a worker's questions about the deploys, answered from its deployer; a message it does not
 * know is answered as such. `ready` is the primary's own business (primary.ts) and comes here only as known.
 */
export const answerWorker =
  (deployer: Deploys, log: WorkerEndOptions["log"]) =>
  (raw: unknown, reply: Reply): void => {
    const received = readWorkerMessage(raw);
    const { known } = received;
    if (known === null) {
      log(
        "warn",
        { type: received.type },
        `a message from a release's server of a type the primary does not know: ${received.type}`,
      );
      reply(message<PrimaryMessage>({ type: "unknown", of: received.type, id: received.id }));
      return;
    }
    if (known.type === "deploy") {
      const { id, commit, delivery } = known;
      const answer = /^([0-9a-f]{40}|HEAD)$/.test(commit)
        ? deployer.accept(commit, delivery)
        : { accepted: false, message: `not a commit: ${commit.slice(0, 64)}` };
      void Promise.resolve(answer).then((taken) =>
        reply(message<PrimaryMessage>({ type: "deploy-answer", id, ...taken })),
      );
    } else if (known.type === "deploy-status") {
      const { running, queued } = deployer.activity();
      reply(message<PrimaryMessage>({ type: "deploy-status", id: known.id, running, queued }));
    } else if (known.type === "unknown") {
      log("error", { of: known.of }, `a release's server does not know the primary's ${known.of} message`);
    }
  };
