import { createSignInFunctions } from "../../admin/server/gatsby-functions";
import { commonHeaders } from "../../serving/common-headers";

/** /api/auth on the CDN deploy: the editing screen's sign-in popup starts here (src/admin/server/). */
export default createSignInFunctions({ siteHeaders: commonHeaders }).begin;
