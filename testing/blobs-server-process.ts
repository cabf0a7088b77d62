/**
 * Runs @netlify/blobs' local Blobs server in a process of its own: the server's dependencies are ES
 * modules only, which jest's module loader cannot require. Arguments: the folder and the token. Prints
 * the port once listening; stops when its standard input closes (the test process ended) or on SIGTERM.
 */
import { BlobsServer } from "@netlify/blobs/server";

const [directory, token] = process.argv.slice(2);
if (!directory || !token) throw new Error("usage: blobs-server-process <directory> <token>");
const server = new BlobsServer({ directory, token, logger: () => undefined });
const stop = () => {
  void server.stop().finally(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.stdin.on("end", stop);
process.stdin.resume();
void server.start().then(({ port }) => process.stdout.write(`${port}\n`));
