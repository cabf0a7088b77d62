/** Whether a process of this machine still runs (signal 0 asks without sending anything). */
export const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
