import { App } from "./shell/app.js";
import { pageSignIn } from "./api/page-api.js";

// a module script runs after the document is parsed, so every element the page's HTML holds exists now
// who is signed in decides whether a refused request shows the sign-in or the token prompt; a visitor who
// must sign in first sees only the sign-in, not every view failing behind it
await pageSignIn.load();
if (!pageSignIn.needsSignIn) new App().start();
