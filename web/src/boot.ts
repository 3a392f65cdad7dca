// The first module the page runs: small, so the requests the first page needs leave at
// once, while the app's code (a separate chunk, preloaded by index.html) loads.
import "../styles/app.css";
import { prefetch } from "./prefetch";

if (!location.pathname.startsWith("/login")) prefetch();
void import("./main");
