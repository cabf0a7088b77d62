// The editing screen (/admin/): Decap CMS from its own prebuilt bundle, which carries its own React and
// shares no code with the site's pages, started with the configuration the build generated from the
// content contract (config.json) and with the format that saves content files tidy (tidy-json.js).
// A plain script, served as it is: no build of the site's compiles it (see tidy-json.js).
"use strict";

(() => {
  const loadScript = (src) =>
    new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = src;
      script.addEventListener("load", resolve);
      script.addEventListener("error", () => reject(new Error(`The editing screen could not load ${src}`)));
      document.head.append(script);
    });

  // Decap's own check for its local backend (decap-server, `npm run edit`): the page is served from
  // the editor's machine.
  const onEditorsMachine = ["localhost", "127.0.0.1"].includes(window.location.hostname);

  // Says on the screen what is missing, instead of a sign-in that cannot work.
  const notSetUp = (what) => {
    throw new Error(`The editing screen is not set up on this site: ${what}. See CONTENT.md, "Signing in".`);
  };

  const start = async () => {
    const response = await fetch("config.json", { cache: "no-cache" });
    if (!response.ok) throw new Error(`The editing screen's configuration is missing (${response.status})`);
    const config = await response.json();
    let backend = config.backend;
    let publishMode = config.publish_mode;
    if (backend.name === "github") {
      // The sign-in popup is this site's own /api/auth, and Decap accepts its answer only from this origin.
      backend = { ...backend, base_url: window.location.origin };
    }
    if (onEditorsMachine) {
      // npm run edit: decap-server writes into the working tree; it keeps no drafts, so no review step.
      publishMode = undefined;
    } else if (backend.name === "github") {
      if (!backend.repo) notSetUp("the build had no CMS_GITHUB_REPO (owner/name of the site's repository)");
    } else if (backend.name === "git-gateway") {
      // Deprecated by Netlify (CONTENT.md): Decap's git-gateway backend looks for the Identity widget as it loads.
      await loadScript("https://identity.netlify.com/v1/netlify-identity-widget.js");
    }
    window.CMS_MANUAL_INIT = true;
    await loadScript("decap/decap-cms.js");
    // The preview pane draws the site's own pages (src/admin/preview/), registered before Decap starts.
    await loadScript("preview/preview.js");
    await window.registerSitePreviews();
    window.CMS.registerCustomFormat(config.collections[0].format, "json", window.tidyJson.createFormat(config));
    // Decap's screens fill the page with their own layout: the page's heading stays for screen readers only.
    document.body.classList.add("decap-started");
    window.CMS.init({
      config: {
        ...config,
        backend,
        publish_mode: publishMode,
        local_backend: onEditorsMachine,
        load_config_file: false,
        // "View live" opens the page on the server that serves this screen: the develop server locally.
        site_url: window.location.origin,
        display_url: window.location.origin,
      },
    });
  };

  // The page's own heading stays, and the reason takes the loading message's place, in the live region
  // that a screen reader reads out as it changes.
  start().catch((error) => {
    const status = document.getElementById("editing-screen-status");
    if (status) status.textContent = error.message;
    else document.body.textContent = error.message;
    throw error;
  });
})();
