// Starts Swagger UI (#swagger-ui) or Redoc (#redoc) on the schema the page names.
// A static file so that the pages need no inline script under the site's CSP.
"use strict";

(function () {
  // Only while this script runs does it know its own tag, and so the page's nonce.
  const nonce = document.currentScript ? document.currentScript.nonce : "";

  function startSwagger(root) {
    const csrfToken = root.dataset.csrfToken;
    window.SwaggerUIBundle({
      url: root.dataset.schemaUrl,
      domNode: root,
      presets: [window.SwaggerUIBundle.presets.apis],
      layout: "BaseLayout",
      deepLinking: true,
      // No badge from the public validator: nothing leaves this server.
      validatorUrl: null,
      // "Try it out" runs as the reader's own login: same-origin cookies, and the CSRF
      // token on writes, as the pages send it.
      requestInterceptor: function (request) {
        if (request.method && request.method !== "GET") {
          request.headers["X-CSRFToken"] = csrfToken;
        }
        return request;
      },
    });
  }

  function startRedoc(root) {
    window.Redoc.init(
      root.dataset.schemaUrl,
      { nonce: nonce },
      root,
    );
  }

  function start() {
    const swagger = document.getElementById("swagger-ui");
    const redoc = document.getElementById("redoc");
    if (swagger && window.SwaggerUIBundle) {
      startSwagger(swagger);
    } else if (redoc && window.Redoc) {
      startRedoc(redoc);
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
