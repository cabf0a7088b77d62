import fs from "node:fs";
import path from "node:path";

const APP_SCRIPT = /<script src="(\/[^"]+\.js)" async=""><\/script>|<script src="(\/[^"]+\.js)" async><\/script>/g;

/**
 * Rewrites a built page so its app scripts start just after the first paint
 * instead of as soon as they arrive. On a fast connection Gatsby's async
 * scripts otherwise run before the browser has painted anything, and the
 * hero — the largest paint — waits for React and the app to evaluate. The
 * page is complete HTML, so nothing is missing meanwhile. (Preloading the
 * scripts was measured and made things worse: on a slow connection they
 * compete with the hero image and the first paint for bandwidth.)
 */
export const deferAppScripts = (html: string): string => {
  const sources = [...html.matchAll(APP_SCRIPT)].map((match) => match[1] ?? match[2]);
  if (sources.length === 0) return html;
  const loader =
    `<script>requestAnimationFrame(function(){setTimeout(function(){` +
    `${JSON.stringify(sources)}.forEach(function(src){var s=document.createElement("script");s.src=src;document.body.appendChild(s)})` +
    `})})</script>`;
  let placed = false;
  return html.replace(APP_SCRIPT, () => {
    if (placed) return "";
    placed = true;
    return loader;
  });
};

/** Applies deferAppScripts to every HTML page under `publicDir`. */
export const deferAppScriptsInDir = (publicDir: string): number => {
  const pages = fs
    .readdirSync(publicDir, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".html") && !file.startsWith("_gatsby"))
    .filter((file) => fs.statSync(path.join(publicDir, file)).isFile());
  for (const page of pages) {
    const file = path.join(publicDir, page);
    fs.writeFileSync(file, deferAppScripts(fs.readFileSync(file, "utf8")));
  }
  return pages.length;
};
