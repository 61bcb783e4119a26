// The organiser's pages work without this script; with it, the create form
// shows only the chosen mechanism's fields and scores.
"use strict";
