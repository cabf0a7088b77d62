import { Component, type ErrorInfo, type ReactNode } from "react";
import { ErrorScreen } from "./ErrorScreen";
import { useSiteData } from "../../hooks/use-site-data";

interface ErrorScreenText {
  title: string;
  intro: string;
  homeLabel: string;
}

interface BoundaryProps {
  text: ErrorScreenText;
  children: ReactNode;
}

interface BoundaryState {
  error: Error | null;
}

class Boundary extends Component<BoundaryProps, BoundaryState> {
  override state: BoundaryState = { error: null };

  static getDerivedStateFromError(error: unknown): BoundaryState {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error("Page failed to render:", error, info.componentStack);
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return <ErrorScreen {...this.props.text} message={error.message} />;
  }
}

/** Catches a failure anywhere in a page and shows the "Unexpected Application Error!" screen. */
export const PageErrorBoundary = ({ children }: { children: ReactNode }) => {
  const { errorScreen } = useSiteData();
  return <Boundary text={errorScreen}>{children}</Boundary>;
};
