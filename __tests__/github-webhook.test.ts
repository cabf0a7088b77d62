import examples from "@octokit/webhooks-examples";
import { handleGithubWebhook } from "../server/releases/github-webhook";
import { githubDelivery } from "./support/deploy-repository";

// GitHub's own example deliveries (the @octokit/webhooks-examples package), as they arrive byte for byte.
const examplesOf = (name: string): Record<string, unknown>[] =>
  (examples.find((definition) => definition.name === name)?.examples ?? []) as unknown as Record<string, unknown>[];
const pushes = examplesOf("push");
const branchPush = pushes.find((push) => push.ref === "refs/heads/master" && push.deleted === false);
const tagPush = pushes.find((push) => push.ref === "refs/tags/simple-tag" && push.deleted === false);
const tagDeletion = pushes.find((push) => push.ref === "refs/tags/simple-tag" && push.deleted === true);
const ping = examplesOf("ping")[0];
// Of the length the settings ask for (DEPLOY_WEBHOOK_SECRET): 32 characters or more.
const secret = "the hook's secret, long as asked for";
const settings = { secret, branch: "master" };

const deliver = (event: string, payload: unknown, headers: Record<string, string> = {}) => {
  const body = JSON.stringify(payload);
  return handleGithubWebhook(
    { headers: { ...githubDelivery(event, body, secret), ...headers }, body: Buffer.from(body) },
    settings,
  );
};

describe("GitHub's push webhook", () => {
  it("has GitHub's examples to test with", () => {
    expect([branchPush, tagPush, tagDeletion, ping].every(Boolean)).toBe(true);
  });

  it("deploys the commit a signed push to the branch names, and answers at once with 202", async () => {
    const answer = await deliver("push", branchPush);
    expect(answer).toEqual({
      status: 202,
      body: { message: "deploying", commit: branchPush?.after },
      deploy: branchPush?.after,
      delivery: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown,
    });
  });

  it("refuses with 401, starting nothing, a delivery that is unsigned, signed with another secret, or altered after signing", async () => {
    const body = JSON.stringify(branchPush);
    const signed = githubDelivery("push", body, secret);
    const unsigned = { ...signed, "x-hub-signature-256": undefined };
    const otherSecret = githubDelivery("push", body, "another secret");
    const sha1Only = { ...unsigned, "x-hub-signature": "sha1=0000" };
    for (const headers of [unsigned, otherSecret, sha1Only]) {
      const answer = await handleGithubWebhook({ headers, body: Buffer.from(body) }, settings);
      expect(answer.status).toBe(401);
      expect(answer.deploy).toBeUndefined();
    }
    const altered = await handleGithubWebhook(
      { headers: signed, body: Buffer.from(body.replace("master", "mastex")) },
      settings,
    );
    expect(altered).toMatchObject({ status: 401 });
    expect(altered.deploy).toBeUndefined();
    const empty = await handleGithubWebhook(
      { headers: githubDelivery("push", "", secret), body: Buffer.alloc(0) },
      settings,
    );
    expect(empty.status).toBe(401);
  });

  it("answers GitHub's ping when the hook is added, and ignores other events", async () => {
    expect(await deliver("ping", ping)).toMatchObject({ status: 200 });
    const issue = await deliver("issues", { action: "opened" });
    expect(issue).toMatchObject({ status: 202, body: { message: expect.stringMatching(/^ignored/) as unknown } });
    expect(issue.deploy).toBeUndefined();
  });

  it("ignores a tag pushed, a tag deleted, another branch, and the branch deleted", async () => {
    const otherBranch = { ...branchPush, ref: "refs/heads/feature" };
    const branchDeleted = { ...branchPush, deleted: true, after: "0".repeat(40) };
    for (const payload of [tagPush, tagDeletion, otherBranch, branchDeleted]) {
      const answer = await deliver("push", payload);
      expect(answer.status).toBe(202);
      expect(answer.body.message).toMatch(/^ignored/);
      expect(answer.deploy).toBeUndefined();
    }
  });

  it("says what is wrong with a signed body that is not a push of a commit", async () => {
    const notJson = "payload=%7B%7D";
    const form = await handleGithubWebhook(
      { headers: githubDelivery("push", notJson, secret), body: Buffer.from(notJson) },
      settings,
    );
    expect(form).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining("application/json") as unknown },
    });
    const noCommit = await deliver("push", { ...branchPush, after: "not a commit" });
    expect(noCommit).toMatchObject({ status: 400 });
    expect(noCommit.deploy).toBeUndefined();
  });
});
