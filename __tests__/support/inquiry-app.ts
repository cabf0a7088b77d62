import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import type { GatsbyFunctionRequest, GatsbyFunctionResponse } from "gatsby";
import { createInquiryHandler, type InquiryHandlerOptions } from "../../src/inquiry/server/handler";

/**
 * The inquiry handler behind the body parsers Gatsby puts in front of every function
 * (its defaults: 100 kB, extended urlencoded), on a free loopback port.
 */
export const startInquiryApp = async (options: InquiryHandlerOptions) => {
  const handler = createInquiryHandler(options);
  const app = express();
  app.all(
    "/api/inquiry",
    express.raw({ limit: "100kb" }),
    express.text({ limit: "100kb" }),
    express.urlencoded({ limit: "100kb", extended: true }),
    express.json({ limit: "100kb" }),
    (req, res) => handler(req as unknown as GatsbyFunctionRequest, res as unknown as GatsbyFunctionResponse),
  );
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/inquiry`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
