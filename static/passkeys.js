// Passkeys (SPEC §11): the buttons `data-action="add-passkey"` (the own player page) and
// `data-action="sign-in-passkey"` (the home page) run a WebAuthn ceremony: they ask the server
// for its options (py_webauthn's JSON, binary fields in base64url), hand them to
// navigator.credentials, and post the browser's answer back as JSON with the CSRF token.
// Adding answers an HTML part (the list again, or the ten recovery codes after the first
// passkey) that takes the passkeys part's place; signing in answers where to go.
// A browser without WebAuthn keeps the sentence that says so, and never sees the buttons.
(function () {
  "use strict";

  const supported = Boolean(
    window.PublicKeyCredential && navigator.credentials && navigator.credentials.create,
  );

  function fromBase64url(text) {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    const padded = base64 + "===".slice((base64.length + 3) % 4);
    const binary = atob(padded);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  }

  function toBase64url(buffer) {
    const bytes = new Uint8Array(buffer);
    let binary = "";
    for (let i = 0; i < bytes.length; i += 1) binary += String.fromCharCode(bytes[i]);
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function descriptors(list) {
    return (list || []).map((one) => ({ ...one, id: fromBase64url(one.id) }));
  }

  function creationOptions(json) {
    return {
      ...json,
      challenge: fromBase64url(json.challenge),
      user: { ...json.user, id: fromBase64url(json.user.id) },
      excludeCredentials: descriptors(json.excludeCredentials),
    };
  }

  function requestOptions(json) {
    const options = { ...json, challenge: fromBase64url(json.challenge) };
    if (json.allowCredentials) options.allowCredentials = descriptors(json.allowCredentials);
    return options;
  }

  // The browser's credential as JSON, its binary fields in base64url (what py_webauthn reads).
  function credentialJSON(credential) {
    const response = credential.response;
    const out = {
      id: credential.id,
      rawId: toBase64url(credential.rawId),
      type: credential.type,
      authenticatorAttachment: credential.authenticatorAttachment || undefined,
      clientExtensionResults: credential.getClientExtensionResults
        ? credential.getClientExtensionResults()
        : {},
      response: { clientDataJSON: toBase64url(response.clientDataJSON) },
    };
    if (response.attestationObject) {
      out.response.attestationObject = toBase64url(response.attestationObject);
      if (response.getTransports) out.response.transports = response.getTransports();
    } else {
      out.response.authenticatorData = toBase64url(response.authenticatorData);
      out.response.signature = toBase64url(response.signature);
      if (response.userHandle) out.response.userHandle = toBase64url(response.userHandle);
    }
    return out;
  }

  function post(button, url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/html",
        "X-CSRFToken": button.dataset.csrf,
      },
      body: JSON.stringify(body),
    });
  }

  // The refusal's sentence: the server's JSON error, else the text of its page.
  async function refusalOf(response) {
    const type = response.headers.get("Content-Type") || "";
    if (type.includes("json")) {
      const body = await response.json();
      if (body && body.error) return body.error;
    }
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const said = page.querySelector("[role=alert], .notice, main p");
    return said ? said.textContent.trim() : "";
  }

  function say(button, text) {
    const status = button.parentElement.querySelector("[data-passkey-status]");
    if (status) status.textContent = text;
  }

  async function ceremony(button, ask) {
    button.disabled = true;
    say(button, "");
    try {
      const options = await post(button, button.dataset.optionsUrl, {});
      if (!options.ok) {
        say(button, await refusalOf(options));
        return;
      }
      let credential;
      try {
        credential = await ask(await options.json());
      } catch (error) {
        say(button, button.dataset.failed);
        return;
      }
      if (!credential) {
        say(button, button.dataset.failed);
        return;
      }
      const answer = await post(button, button.dataset.url, {
        credential: credentialJSON(credential),
      });
      if (!answer.ok) {
        say(button, await refusalOf(answer));
        return;
      }
      await done(button, answer);
    } catch (error) {
      say(button, button.dataset.failed);
    } finally {
      button.disabled = false;
    }
  }

  async function done(button, answer) {
    if (button.dataset.action === "sign-in-passkey") {
      const body = await answer.json();
      window.location.assign(body.go);
      return;
    }
    const part = button.closest("[data-passkeys]");
    const holder = document.createElement("div");
    holder.innerHTML = await answer.text();
    const fresh = holder.firstElementChild;
    part.replaceWith(fresh);
    show(fresh);
    if (window.htmx) window.htmx.process(fresh);
    const heading = fresh.querySelector("h2");
    if (heading) heading.focus();
  }

  function addPasskey(button) {
    return ceremony(button, (json) =>
      navigator.credentials.create({ publicKey: creationOptions(json) }),
    );
  }

  function signIn(button) {
    return ceremony(button, (json) =>
      navigator.credentials.get({ publicKey: requestOptions(json) }),
    );
  }

  function show(root) {
    if (!supported) return;
    root.querySelectorAll("[data-needs-webauthn]").forEach((el) => {
      el.hidden = false;
    });
    root.querySelectorAll("[data-without-webauthn]").forEach((el) => {
      el.hidden = true;
    });
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest(
      '[data-action="add-passkey"], [data-action="sign-in-passkey"]',
    );
    if (!button || button.disabled || !supported) return;
    event.preventDefault();
    if (button.dataset.action === "add-passkey") addPasskey(button);
    else signIn(button);
  });

  document.addEventListener("htmx:load", (event) => show(event.target));
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => show(document));
  } else {
    show(document);
  }
})();
