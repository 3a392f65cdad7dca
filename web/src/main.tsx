import { render } from "preact";
import { App } from "./views/App";
import { Login } from "./views/Login";

const root = document.getElementById("app")!;
if (location.pathname.startsWith("/login")) render(<Login />, root);
else render(<App />, root);
