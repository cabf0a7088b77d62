import { execFileSync } from "node:child_process";
import path from "node:path";
import { enterRunTempRoot } from "../../testing/run-temp-root";

/**
 * Jest's global setup: the run's temporary folders in one place, removed as the run ends; and the server
 * compiled as production runs it (npm run build:server), so the tests that start it run today's code.
 */
export default (): void => {
  enterRunTempRoot("site-jest-");
  execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.server.json"], {
    cwd: path.resolve(__dirname, "../.."),
    stdio: "inherit",
  });
};
