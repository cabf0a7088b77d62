import type { Worker } from "node:cluster";
import type { Deployer } from "./deployer";
import { deployStatus, type DeployStatus } from "./release-store";

/**
 * What the server that answers visitors (a worker: the live release's own server) and the primary that
 * deploys say to each other over the cluster's channel. The worker takes GitHub's webhook and asks the
 * primary to deploy; /healthz asks it whether a deploy runs. The releases themselves are read from disk.
 */
type WorkerMessage =
  { readonly type: "deploy"; readonly commit: string } | { readonly type: "deploy-status"; readonly id: number };

interface PrimaryMessage {
  readonly type: "deploy-status";
  readonly id: number;
  readonly running: boolean;
  readonly queued: string | null;
}

/** The deploys as a route sees them, whether the deployer runs in this process or in the primary. */
export interface ReleaseControl {
  /** Asks for a deploy of a commit of the branch; false when the deploys cannot be reached (this server is stopping). */
  request(commit: string): boolean;
  status(): Promise<DeployStatus>;
}

/** The deployer of this process (the primary's, or a test's). */
export const localReleases = (deployer: Deployer): ReleaseControl => ({
  request: (commit) => {
    deployer.request(commit);
    return true;
  },
  status: () => Promise.resolve(deployer.status()),
});

// The primary answers at once; one that does not is stopping, and the answer says no deploy is known to run.
const STATUS_TIMEOUT_MS = 2_000;

const isPrimaryMessage = (message: unknown): message is PrimaryMessage =>
  typeof message === "object" && message !== null && (message as { type?: unknown }).type === "deploy-status";

/**
 * In a worker: the deploys through the primary, the releases from DEPLOY_DIR. The channel closes when the
 * primary retires this worker; a request still in hand then finds no deploys to ask (a message on a closed
 * channel would be an error nobody catches).
 */
export const releasesThroughPrimary = (
  deployDir: string,
  channel: Pick<NodeJS.Process, "send" | "on" | "off" | "connected"> = process,
): ReleaseControl => {
  let nextId = 0;
  /** The questions awaiting the primary's answer, by id: one listener on the channel serves them all. */
  const waiting = new Map<number, (answer: PrimaryMessage | null) => void>();
  const answered = (message: unknown) => {
    if (isPrimaryMessage(message)) waiting.get(message.id)?.(message);
  };
  /** Sends to the primary; false once the channel has closed. */
  const sent = (message: WorkerMessage): boolean => {
    if (!channel.connected || !channel.send) return false;
    channel.send(message);
    return true;
  };
  return {
    request: (commit) => sent({ type: "deploy", commit }),
    status: () =>
      new Promise((resolve) => {
        const id = (nextId += 1);
        // No answer (a timeout, a closed channel): no deploy is known to run.
        const settle = (answer: PrimaryMessage | null) => {
          clearTimeout(timer);
          waiting.delete(id);
          if (waiting.size === 0) channel.off("message", answered);
          resolve(deployStatus(deployDir, answer?.running ?? false, answer?.queued ?? null));
        };
        const timer = setTimeout(() => settle(null), STATUS_TIMEOUT_MS);
        if (waiting.size === 0) channel.on("message", answered);
        waiting.set(id, settle);
        if (!sent({ type: "deploy-status", id })) settle(null);
      }),
  };
};

/** In the primary: a worker's message, answered from its deployer. Anything else is ignored. */
export const answerWorker = (deployer: Deployer) => (worker: Pick<Worker, "send">, message: unknown) => {
  if (typeof message !== "object" || message === null) return;
  const { type } = message as { type?: unknown };
  if (type === "deploy") {
    const { commit } = message as { commit?: unknown };
    if (typeof commit === "string" && /^([0-9a-f]{40}|HEAD)$/.test(commit)) deployer.request(commit);
  } else if (type === "deploy-status") {
    const { id } = message as { id?: unknown };
    if (typeof id !== "number") return;
    const { running, queued } = deployer.status();
    worker.send({ type: "deploy-status", id, running, queued } satisfies PrimaryMessage);
  }
};
