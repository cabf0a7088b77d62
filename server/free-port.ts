import net from "node:net";

/** A loopback port free now: for a server a process starts and then asks (the deploys' start check, tests). */
export const freeLoopbackPort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
