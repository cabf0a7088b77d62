import { createSignInFunctions } from "../../../server/sign-in/gatsby-functions";
import { commonHeaders } from "../../../server/site/common-headers";

/** /api/auth/callback on the CDN deploy: GitHub sends the editor back here (server/sign-in/). */
export default createSignInFunctions({ siteHeaders: commonHeaders }).callback;
