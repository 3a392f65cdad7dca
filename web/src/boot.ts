// The first module the page runs: small, so the requests the first page needs leave at
// once, while the app's code (a separate chunk, preloaded by index.html) loads.
import "../styles/app.css";
import { prefetch } from "./prefetch";

// The signed-out pages (sign-in, sign-up, password reset) fetch nothing of the app's.
if (!/^\/(login|join\/|password\/reset\/)/.test(location.pathname)) prefetch();
void import("./main");
