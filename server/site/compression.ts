/**
 * What the build's compressed copies (build/precompressed-files.ts) and the production server's
 * on-the-fly compression (server/app.ts) agree on.
 */

/** The size below which the server sends a file as it is: compressing it would save less than it costs. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** The encodings @fastify/static's preCompressed option looks for, by the suffix it appends. */
export const PRECOMPRESSED_SUFFIX = /\.(br|gz)$/;
