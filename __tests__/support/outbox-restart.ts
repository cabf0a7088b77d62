import { forgetProcessWide } from "../../server/inquiries/process-wide";

/**
 * As if the process restarted: forgets what the outboxes keep process-wide (the SQL store's outboxes,
 * blobs-outbox.ts's write queues), so the next one opened starts from what the store holds.
 */
export const forgetProcessState = () => {
  forgetProcessWide("inquiry-outbox");
  forgetProcessWide("inquiry-blobs-outbox");
};
