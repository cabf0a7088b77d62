import fs from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { chromeFlags, chromePath } from "../e2e/support/browser";

export interface PageFigures {
  path: string;
  runs: number;
  performance: number;
  accessibility: number;
  bestPractices: number;
  seo: number;
  largestContentfulPaintMs: number;
  cumulativeLayoutShift: number;
  totalBlockingTimeMs: number;
  javaScriptGzipBytes: number;
  cssGzipBytes: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

const gzipBytes = (text: string | Buffer) => gzipSync(text, { level: 9 }).length;

/** The gzip size of every same-origin script the page loaded, and of its CSS (linked files and inline <style>). */
const pageWeight = (
  publicDir: string,
  origin: string,
  html: string,
  requests: { url: string; resourceType?: string }[],
) => {
  const local = (url: string) => path.join(publicDir, decodeURIComponent(new URL(url).pathname));
  const sameOrigin = requests.filter((request) => request.url.startsWith(origin));
  const scripts = sameOrigin.filter((request) => request.resourceType === "Script");
  const sheets = sameOrigin.filter((request) => request.resourceType === "Stylesheet");
  const inlineCss = [...html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)].map((match) => match[1]).join("\n");
  return {
    javaScriptGzipBytes: scripts.reduce((sum, request) => sum + gzipBytes(fs.readFileSync(local(request.url))), 0),
    cssGzipBytes:
      gzipBytes(inlineCss) + sheets.reduce((sum, request) => sum + gzipBytes(fs.readFileSync(local(request.url))), 0),
  };
};

interface LighthouseAudit {
  numericValue?: number;
  details?: { items?: { url: string; resourceType?: string }[] };
}
interface LighthouseResult {
  categories: Record<"performance" | "accessibility" | "best-practices" | "seo", { score: number | null }>;
  audits: Record<string, LighthouseAudit>;
}

/** Lighthouse's mobile preset (its default: emulated phone, simulated slow 4G and 4x CPU), `runs` times; the median of each figure. */
export const measurePage = async (
  origin: string,
  pagePath: string,
  publicDir: string,
  runs: number,
): Promise<PageFigures> => {
  const { default: lighthouse } = await import("lighthouse");
  const chromeLauncher = await import("chrome-launcher");
  const results: LighthouseResult[] = [];
  for (let run = 0; run < runs; run += 1) {
    const chrome = await chromeLauncher.launch({
      chromePath,
      chromeFlags: [...chromeFlags, "--headless=new"],
    });
    try {
      const result = await lighthouse(`${origin}${pagePath}`, { port: chrome.port, logLevel: "error", output: "json" });
      if (!result) throw new Error(`Lighthouse returned nothing for ${pagePath}`);
      results.push(result.lhr as unknown as LighthouseResult);
    } finally {
      chrome.kill();
    }
  }
  const score = (category: keyof LighthouseResult["categories"]) =>
    median(results.map((result) => Math.round((result.categories[category].score ?? 0) * 100)));
  const audit = (id: string) => median(results.map((result) => result.audits[id]?.numericValue ?? Number.NaN));
  const html = await (await fetch(`${origin}${pagePath}`)).text();
  const requests = results[0]!.audits["network-requests"]?.details?.items ?? [];
  return {
    path: pagePath,
    runs,
    performance: score("performance"),
    accessibility: score("accessibility"),
    bestPractices: score("best-practices"),
    seo: score("seo"),
    largestContentfulPaintMs: Math.round(audit("largest-contentful-paint")),
    cumulativeLayoutShift: Number(audit("cumulative-layout-shift").toFixed(4)),
    totalBlockingTimeMs: Math.round(audit("total-blocking-time")),
    ...pageWeight(publicDir, origin, html, requests),
  };
};
