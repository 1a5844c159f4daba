import h5py, numpy as np, sys
h=h5py.File(sys.argv[1],'r')
nv=h['/power/nvml']; t=np.array(nv['t_s']); sm=np.array(nv['sm_mhz']); pw=np.array(nv['power_w']); thr=np.array(nv['throttle_reasons'])
for name,g in h['results'].items():
    if 'clock_mhz' not in g: continue
    c=np.array(g['clock_mhz'])[0]; s0=np.array(g['rep_start_s'])[0]; s1=np.array(g['rep_end_s'])[0]
    rate = np.array(g['gflops'])[0] if 'gflops' in g else np.array(g['bandwidth_gbs'])[0]
    pf = np.array(g['peak_fraction'])[0] if 'peak_fraction' in g else np.full(len(c),np.nan)
    rows=[]
    for k in range(len(c)):
        # samples holding within the rep window
        idx=[i for i in range(len(t)) if t[i]<=s1[k] and (i+1==len(t) or t[i+1]>=s0[k])]
        m=np.median(sm[idx]) if idx else np.nan
        p=np.median(pw[idx]) if idx else np.nan
        tr=np.bitwise_or.reduce(thr[idx].astype(np.int64)) if idx else 0
        rows.append((c[k],m,c[k]/m,rate[k],pf[k],p,(s1[k]-s0[k])*1e3,len(idx),tr))
    a=np.array(rows)
    print(f"{name:20s} dur {np.median(a[:,6]):8.2f} ms  inkernel {np.median(a[:,0]):7.1f} [{a[:,0].min():.0f},{a[:,0].max():.0f}]  nvml {np.median(a[:,1]):6.0f} [{np.nanmin(a[:,1]):.0f},{np.nanmax(a[:,1]):.0f}]  ratio {np.median(a[:,2]):.4f} [{np.nanmin(a[:,2]):.3f},{np.nanmax(a[:,2]):.3f}]  rate {np.median(a[:,3]):.5g} pf {np.nanmedian(a[:,4]):.4f} [{np.nanmin(a[:,4]):.4f},{np.nanmax(a[:,4]):.4f}] W {np.median(a[:,5]):.0f} thr {set(int(x) for x in a[:,8])}")
