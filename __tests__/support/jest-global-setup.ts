import { enterRunTempRoot } from "../../testing/run-temp-root";

/** Jest's global setup: the run's temporary folders in one place, removed as the run ends. */
export default (): void => enterRunTempRoot("site-jest-");
