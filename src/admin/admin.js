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

  const start = async () => {
    const response = await fetch("config.json", { cache: "no-cache" });
    if (!response.ok) throw new Error(`The editing screen's configuration is missing (${response.status})`);
    const config = await response.json();
    // On the deployed site editors sign in with Netlify Identity, whose widget Decap's git-gateway
    // backend looks for as it loads; an editor's own machine needs no sign-in.
    if (!onEditorsMachine) await loadScript("https://identity.netlify.com/v1/netlify-identity-widget.js");
    window.CMS_MANUAL_INIT = true;
    await loadScript("decap/decap-cms.js");
    window.CMS.registerCustomFormat(config.collections[0].format, "json", window.tidyJson.createFormat(config));
    window.CMS.init({
      config: {
        ...config,
        load_config_file: false,
        // "View live" opens the page on the server that serves this screen: the develop server locally.
        site_url: window.location.origin,
        display_url: window.location.origin,
      },
    });
  };

  start().catch((error) => {
    document.body.textContent = error.message;
    throw error;
  });
})();
