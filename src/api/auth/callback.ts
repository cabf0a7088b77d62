import { createSignInFunctions } from "../../admin/server/gatsby-functions";
import { commonHeaders } from "../../serving/common-headers";

/** /api/auth/callback on the CDN deploy: GitHub sends the editor back here (src/admin/server/). */
export default createSignInFunctions({ siteHeaders: commonHeaders }).callback;
