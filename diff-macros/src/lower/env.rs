//! Variables: what a name means at a point of the body, and each variable's current value.
//!
//! Every `let` (and every parameter) makes a new variable, even one that shadows another
//! of the same name in the same scope; an assignment changes the variable's value and
//! keeps the variable. Branches and loops compare and carry variables, never names, so a
//! shadowing `let` is never taken for an update of the variable it hides, and a variable
//! assigned a value equal to its old one is still an assigned variable.
use super::Lowerer;
use crate::ir::Value;
use std::collections::HashMap;

/// A variable of the body: one binding of a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Var(u32);

/// The state lowering reads names through; a branch starts from a copy of it.
#[derive(Clone, Debug)]
pub(crate) struct Env {
    /// Lexical scopes, innermost last: name -> variable.
    scopes: Vec<HashMap<String, Var>>,
    /// Each variable's current value (variables of popped scopes included).
    values: HashMap<Var, Value>,
    /// Names hidden until the scope at the given depth is popped.
    hidden: Vec<(String, usize)>,
}

impl Env {
    pub(crate) fn new() -> Self {
        Env {
            scopes: vec![HashMap::new()],
            values: HashMap::new(),
            hidden: Vec::new(),
        }
    }

    /// The variable `name` refers to.
    pub(crate) fn var(&self, name: &str) -> Option<Var> {
        if self.hidden.iter().any(|(h, _)| h == name) {
            return None;
        }
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// The current value of a variable.
    pub(crate) fn value(&self, var: Var) -> Option<Value> {
        self.values.get(&var).copied()
    }

    /// The variables of `self` whose value differs in `after`, in order of declaration.
    pub(crate) fn changed_in(&self, after: &Env) -> Vec<Var> {
        let mut vars: Vec<Var> = self
            .values
            .iter()
            .filter(|(var, v)| after.values.get(var) != Some(v))
            .map(|(var, _)| *var)
            .collect();
        vars.sort();
        vars
    }

    /// Whether the variable was declared in this state.
    pub(crate) fn declares(&self, var: Var) -> bool {
        self.values.contains_key(&var)
    }

    /// The number of scopes.
    pub(crate) fn depth(&self) -> usize {
        self.scopes.len()
    }
}

impl Lowerer {
    /// The current value of the variable `name` refers to.
    pub(crate) fn lookup(&self, name: &str) -> Option<Value> {
        self.env.var(name).and_then(|v| self.env.value(v))
    }

    /// Hides a name until the innermost scope is popped (a pattern binding shadowing a
    /// local inside a guard).
    pub(crate) fn hide(&mut self, name: &str) {
        let depth = self.env.scopes.len();
        self.env.hidden.push((name.to_string(), depth));
    }

    /// Declares a new variable in the innermost scope (shadowing any other of its name).
    pub(crate) fn bind(&mut self, name: String, v: Value) {
        // Values are shown with the user's names, not the synthetic ones.
        if self.func.values[v.0 as usize].name.is_none() && !name.starts_with("__diff") {
            self.func.values[v.0 as usize].name = Some(name.clone());
        }
        let var = Var(self.var_names.len() as u32);
        self.var_names.push(name.clone());
        self.env.values.insert(var, v);
        self.env
            .scopes
            .last_mut()
            .expect("a scope")
            .insert(name, var);
    }

    /// The variable `name` refers to here.
    pub(crate) fn binding(&self, name: &str) -> Option<Var> {
        self.env.var(name)
    }

    /// The name a variable was declared with.
    pub(crate) fn var_name(&self, var: Var) -> &str {
        &self.var_names[var.0 as usize]
    }

    /// Assigns the variable `name` refers to.
    pub(crate) fn assign(&mut self, name: &str, v: Value) -> bool {
        match self.env.var(name) {
            Some(var) => {
                self.set(var, v);
                true
            }
            None => false,
        }
    }

    /// Assigns a variable.
    pub(crate) fn set(&mut self, var: Var, v: Value) {
        self.env.values.insert(var, v);
        self.assignments.push(var);
    }

    /// A mark in the log of assignments, for [`assigned_since`](Self::assigned_since).
    pub(crate) fn assignment_mark(&self) -> usize {
        self.assignments.len()
    }

    /// The variables declared in `before` that were assigned since `mark`, in order of
    /// declaration, whatever values they were assigned.
    pub(crate) fn assigned_since(&self, mark: usize, before: &Env) -> Vec<Var> {
        let mut vars: Vec<Var> = self.assignments[mark..]
            .iter()
            .copied()
            .filter(|v| before.declares(*v))
            .collect();
        vars.sort();
        vars.dedup();
        vars
    }

    pub(crate) fn push_scope(&mut self) {
        self.env.scopes.push(HashMap::new());
    }

    pub(crate) fn pop_scope(&mut self) {
        let depth = self.env.scopes.len();
        self.env.hidden.retain(|(_, d)| *d != depth);
        self.env.scopes.pop();
    }

    /// Pops scopes down to `depth`.
    pub(crate) fn truncate_scopes(&mut self, depth: usize) {
        while self.env.scopes.len() > depth {
            self.pop_scope();
        }
    }
}
