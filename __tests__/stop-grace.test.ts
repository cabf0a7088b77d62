/**
 * @jest-environment node
 */
import path from "node:path";
import { readInquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import {
  MAX_ATTEMPT_TIMEOUT_SECONDS,
  STOP_MARGIN_SECONDS,
  UNIT_STOP_TIMEOUT_SECONDS,
  stopGraceMs,
} from "../server/stop-grace";
import { readUnit, setting } from "./support/unit-sandbox";

/**
 * A stop waits for the delivery attempts under way, and systemd kills the server once the unit's TimeoutStopSec has
 * passed: whatever attempt timeout an operator may set, the wait must end first. The unit file is read as systemd
 * reads it, so changing either number alone fails here.
 */
const UNIT_FILE = path.resolve("deploy/cardinal-site.service");

/** A systemd time span in seconds: `30`, `30s`, `1min 30s`, `2m` (systemd.time(7); a bare number is seconds). */
const secondsOfTimeSpan = (span: string): number => {
  const units: Record<string, number> = { ms: 0.001, s: 1, sec: 1, m: 60, min: 60, h: 3600, hr: 3600 };
  const parts = [...span.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]*)/g)];
  if (
    parts.length === 0 ||
    parts
      .map((part) => part[0])
      .join("")
      .replace(/\s/g, "") !== span.replace(/\s/g, "")
  ) {
    throw new Error(`not a time span systemd reads: ${span}`);
  }
  return parts.reduce((total, [, value, unit]) => {
    const factor = units[unit === undefined || unit === "" ? "s" : unit];
    if (factor === undefined) throw new Error(`not a time unit this test knows: ${unit} in ${span}`);
    return total + Number(value) * factor;
  }, 0);
};

/** The unit's TimeoutStopSec (the last one, as systemd takes it); none is an error. */
const unitStopTimeout = (): string => {
  const value = setting(readUnit(UNIT_FILE), "TimeoutStopSec");
  if (value === undefined) throw new Error(`${path.basename(UNIT_FILE)} sets no TimeoutStopSec in [Service]`);
  return value;
};

const timeoutStopSec = secondsOfTimeSpan(unitStopTimeout());
const delivery = readInquiryContent(path.resolve("content")).form.delivery;

describe("the stop grace", () => {
  it("reads TimeoutStopSec as systemd writes it", () => {
    expect(secondsOfTimeSpan("30")).toBe(30);
    expect(secondsOfTimeSpan("30s")).toBe(30);
    expect(secondsOfTimeSpan("1min 30s")).toBe(90);
    expect(() => secondsOfTimeSpan("infinity")).toThrow();
  });

  it("knows the unit's stop timeout", () => {
    expect(timeoutStopSec).toBe(UNIT_STOP_TIMEOUT_SECONDS);
  });

  it("ends before systemd's stop timeout at the longest attempt timeout an operator may set", () => {
    expect(MAX_ATTEMPT_TIMEOUT_SECONDS).toBe(UNIT_STOP_TIMEOUT_SECONDS - 2 * STOP_MARGIN_SECONDS);
    const longest = readInquiryConfig(delivery, {
      INQUIRY_ATTEMPT_TIMEOUT_SECONDS: String(MAX_ATTEMPT_TIMEOUT_SECONDS),
    });
    expect(longest.delivery.attemptTimeoutMs).toBe(MAX_ATTEMPT_TIMEOUT_SECONDS * 1000);
    expect(stopGraceMs(longest.delivery.attemptTimeoutMs)).toBe(
      (MAX_ATTEMPT_TIMEOUT_SECONDS + STOP_MARGIN_SECONDS) * 1000,
    );
    expect(stopGraceMs(longest.delivery.attemptTimeoutMs)).toBeLessThan(timeoutStopSec * 1000);
    // And so at the default, whatever it is.
    expect(stopGraceMs(readInquiryConfig(delivery, {}).delivery.attemptTimeoutMs)).toBeLessThan(timeoutStopSec * 1000);
  });

  it("refuses an attempt timeout past the longest, by name", () => {
    expect(() =>
      readInquiryConfig(delivery, { INQUIRY_ATTEMPT_TIMEOUT_SECONDS: String(MAX_ATTEMPT_TIMEOUT_SECONDS + 1) }),
    ).toThrow(
      `INQUIRY_ATTEMPT_TIMEOUT_SECONDS must be a whole number from 1 to ${MAX_ATTEMPT_TIMEOUT_SECONDS}, ` +
        `not ${MAX_ATTEMPT_TIMEOUT_SECONDS + 1}`,
    );
  });
});
