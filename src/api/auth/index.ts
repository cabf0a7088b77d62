import { createSignInFunctions } from "../../../server/sign-in/gatsby-functions";
import { commonHeaders } from "../../../server/site/common-headers";

/** /api/auth on the CDN deploy: the editing screen's sign-in popup starts here (server/sign-in/). */
export default createSignInFunctions({ siteHeaders: commonHeaders }).begin;
