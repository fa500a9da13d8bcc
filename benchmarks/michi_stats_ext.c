// Statistics commands for an instrumented copy of michi-c (benchmarks/michi_stats.py appends this
// file to a copy of michi.c in a cache folder; the peer's source folder is never written).
//
//   setup b|w BOARD   the position: BOARD is N*N characters, row by row from the top, '.' 'X' 'O'
//   mcstats K         K playouts from the position: moves by rule, mean length, Black's wins
//   tsstats K         a tree search of exactly K simulations (no early stop): the root's children
//
// The playout counters are kept by mcplayout() (patched in by michi_stats.py).

void st_setup(Position *pos, char tomove, const char *board)
{
    float komi = pos->komi;
    empty_position(pos);
    pos->komi = komi;
    pos->n = (tomove == 'w' || tomove == 'W') ? 1 : 0;
    int black_to_play = pos->n % 2 == 0;
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++) {
            char ch = board[r * N + c];
            Point pt = (r + 1) * (N + 1) + c + 1;
            if (ch == 'X') pos->color[pt] = black_to_play ? 'X' : 'x';
            else if (ch == 'O') pos->color[pt] = black_to_play ? 'x' : 'X';
            else pos->color[pt] = '.';
        }
    FORALL_POINTS(pos, pt) {
        if (pos->color[pt] == ' ') continue;
        pos->env4[pt] = compute_env4(pos, pt, 0);
        pos->env4d[pt] = compute_env4(pos, pt, 4);
    }
    pos->ko = pos->ko_old = pos->last = pos->last2 = pos->last3 = 0;
}

char st_out[65536];

char *st_mcstats(Position *pos, int k)
{
    int *amaf = calloc(BOARDSIZE, sizeof(int)), *owner = calloc(BOARDSIZE, sizeof(int));
    long black_wins = 0, length = 0;
    double score_sum = 0.0;
    int black = pos->n % 2 == 0;
    for (int i = 0; i < 4; i++) st_count[i] = 0;
    for (int i = 0; i < k; i++) {
        Position p = *pos;
        memset(amaf, 0, BOARDSIZE * sizeof(int));
        double s = mcplayout(&p, amaf, owner, 0);  // for the player to move at the start
        double sb = black ? s : -s;
        black_wins += sb > 0;
        score_sum += sb;
        length += p.n - pos->n;
    }
    char *o = st_out;
    o += sprintf(o, "playouts %d capture %ld pat3 %ld random %ld pass %ld length %ld black_wins %ld black_score_sum %.1f\nowner",
                 k, st_count[0], st_count[1], st_count[2], st_count[3], length, black_wins, score_sum);
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++)
            o += sprintf(o, " %d", owner[(r + 1) * (N + 1) + c + 1]);
    free(amaf); free(owner);
    return st_out;
}

char *st_tsstats(Position *pos, int k)
{
    int *owner = calloc(BOARDSIZE, sizeof(int));
    TreeNode *tree = new_tree_node(pos);
    st_no_early_stop = 1;
    tree_search(tree, k, owner, 0);
    st_no_early_stop = 0;
    char *o = st_out, str[8];
    o += sprintf(o, "root %d %d", tree->v, tree->w);
    for (int i = 0; i < tree->nchildren; i++) {
        TreeNode *c = tree->children[i];
        o += sprintf(o, "\n%s %d %d %d %d %d %d", str_coord(c->pos.last, str), c->v, c->w, c->pv, c->pw, c->av, c->aw);
    }
    free_tree(tree); free(owner);
    return st_out;
}
