import { render } from "preact";
import { App } from "./views/App";
import { Login } from "./views/Login";

performance.mark("app-start");
const root = document.getElementById("app")!;
if (location.pathname.startsWith("/login")) render(<Login />, root);
else render(<App />, root);
