import type { ReactElement } from "react";
import { PageErrorBoundary } from "./components/layout/PageErrorBoundary";

/** Shared by gatsby-browser and gatsby-ssr so the server and client trees match. */
export const wrapPageElement = ({ element }: { element: ReactElement }) => (
  <PageErrorBoundary>{element}</PageErrorBoundary>
);
