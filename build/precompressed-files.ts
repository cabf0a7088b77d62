import { promises as fs } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { COMPRESSION_THRESHOLD_BYTES, PRECOMPRESSED_SUFFIX } from "../server/site/compression";

const brotliCompress = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** What the server would otherwise compress for every request: text, at least that threshold. */
const COMPRESSIBLE = /\.(html|js|css|json|svg|webmanifest|xml|txt)$/;
/** A copy this step made: a compressible file's name with one of those suffixes. */
const COPY = new RegExp(`${COMPRESSIBLE.source.slice(0, -1)}${PRECOMPRESSED_SUFFIX.source}`);
/** A copy being written, under a name of its own until it is whole; one an interrupted build left behind. */
const PARTIAL = new RegExp(`${COPY.source.slice(0, -1)}\\.partial$`);

const filesUnder = async (dir: string) =>
  (await fs.readdir(dir, { recursive: true })).map((entry) => entry.split(path.sep).join("/"));

/** Removes the copies an earlier build wrote, for a build whose host compresses by itself (a CDN). */
export const removePrecompressedCopies = async (dir: string): Promise<void> => {
  const copies = (await filesUnder(dir)).filter((entry) => COPY.test(entry) || PARTIAL.test(entry));
  await Promise.all(copies.map((entry) => fs.rm(path.join(dir, entry))));
};

export interface PrecompressOptions {
  /** Relative paths (with forward slashes) to leave to on-the-fly compression. */
  readonly skip?: (relative: string) => boolean;
}

export interface PrecompressResult {
  /** The files that have copies. */
  readonly files: number;
  /** Of those, the files whose copies were written in this run; the others' were kept. */
  readonly written: number;
  readonly bytes: number;
  readonly brotliBytes: number;
}

/**
 * A copy written whole or not at all: beside, then renamed over the old one. Written in place, a copy cut short
 * (a build stopped, a full disk) would be newer than its file and kept by every later build.
 */
const writeWhole = async (copy: string, content: Buffer) => {
  await fs.writeFile(`${copy}.partial`, content);
  await fs.rename(`${copy}.partial`, copy);
};

/** The copies of `file`, brotli first; null for one that is missing. */
const copiesOf = (file: string) =>
  Promise.all([`${file}.br`, `${file}.gz`].map((copy) => fs.stat(copy, { bigint: true }).catch(() => null)));

/**
 * Writes a brotli (quality 11) and a gzip (level 9) copy beside every compressible file of a build, for the
 * production server to send as they are (server/app.ts): compressing on the fly would be most of the
 * server's CPU per page load, and at a quality fast enough for that it would send more bytes.
 * No copy outlives or contradicts the file it was made from: a copy whose file is gone, or no longer
 * compressed, is removed, and a file's copies are written again unless both were written after the file last
 * changed. Its ctime says when, which every write moves, and setting the file's times back moves as well; so
 * an incremental build compresses only the files it wrote.
 */
export const precompressFiles = async (dir: string, options: PrecompressOptions = {}): Promise<PrecompressResult> => {
  const entries = await filesUnder(dir);
  const kept = new Set<string>();
  let files = 0;
  let written = 0;
  let bytes = 0;
  let brotliBytes = 0;
  for (const entry of entries) {
    if (!COMPRESSIBLE.test(entry) || options.skip?.(entry)) continue;
    const file = path.join(dir, entry);
    const stat = await fs.stat(file, { bigint: true });
    if (!stat.isFile() || stat.size < COMPRESSION_THRESHOLD_BYTES) continue;
    kept.add(`${entry}.br`).add(`${entry}.gz`);
    files += 1;
    bytes += Number(stat.size);
    const [brotliCopy, gzipCopy] = await copiesOf(file);
    if (brotliCopy && gzipCopy && brotliCopy.mtimeNs > stat.ctimeNs && gzipCopy.mtimeNs > stat.ctimeNs) {
      brotliBytes += Number(brotliCopy.size);
      continue;
    }
    const content = await fs.readFile(file);
    const [brotli, gzipped] = await Promise.all([
      brotliCompress(content, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
          [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: content.length,
        },
      }),
      gzip(content, { level: zlib.constants.Z_BEST_COMPRESSION }),
    ]);
    await Promise.all([writeWhole(`${file}.br`, brotli), writeWhole(`${file}.gz`, gzipped)]);
    written += 1;
    brotliBytes += brotli.length;
  }
  const stale = entries.filter((entry) => (COPY.test(entry) && !kept.has(entry)) || PARTIAL.test(entry));
  await Promise.all(stale.map((entry) => fs.rm(path.join(dir, entry))));
  return { files, written, bytes, brotliBytes };
};
